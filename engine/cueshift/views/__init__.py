"""The SQL views of sql/views/ read as frames, and the first-cut overview of a study database."""
