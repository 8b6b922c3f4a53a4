# docs/exports.md's binomial GLMM on counts.csv (summed over orderings), one model at a time, and
# each variation's effect on the probability scale: the mean over the face x scenario cells of the
# predicted P(favourable) with the variation minus with the base image.
# Usage: Rscript glmer_counts.R DIR [NAGQ] (reads DIR/counts.csv, writes DIR/glmer_effects.csv);
# NAGQ 1 (default): Laplace, as docs/exports.md; 0: fixed effects in the PIRLS step, much faster.
suppressMessages(library(lme4))
args <- commandArgs(TRUE)
dir <- args[1]
nagq <- if (length(args) > 1) as.integer(args[2]) else 1L
d <- read.csv(file.path(dir, "counts.csv"), stringsAsFactors = FALSE)
d <- aggregate(d[, c("favourable", "valid")], by = d[, c("model_id", "face_id", "variation_value",
                                                           "scenario_id")], FUN = sum)
d <- d[d$valid > 0, ]
d$variation_value <- relevel(factor(d$variation_value), ref = "base")
out <- NULL
for (m in unique(d$model_id)) {
  s <- d[d$model_id == m, ]
  fit <- glmer(cbind(favourable, valid - favourable) ~ variation_value + (1 | face_id) + (1 | scenario_id),
               family = binomial, data = s, nAGQ = nagq,
               control = glmerControl(optimizer = "bobyqa", optCtrl = list(maxfun = 1e5)))
  cells <- unique(s[, c("face_id", "scenario_id")])
  at <- function(v) {
    cells$variation_value <- factor(v, levels = levels(s$variation_value))
    predict(fit, cells, type = "response")
  }
  for (v in setdiff(levels(s$variation_value), "base")) {
    out <- rbind(out, data.frame(model_id = m, variation_value = v, glmm = mean(at(v) - at("base"))))
  }
}
write.csv(out, file.path(dir, "glmer_effects.csv"), row.names = FALSE)
