"""What a study asks: scenarios, prompt variants, variation filter (seed 000 §4, App. C)."""
