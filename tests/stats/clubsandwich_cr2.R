# clubSandwich's CR2 + Satterthwaite tests of an OLS fit, the reference of
# tests/stats/test_small_sample_cluster.py and tests/designs/test_probe_scale_regression.py.
# Usage: Rscript clubsandwich_cr2.R <folder> <level>
# Every <folder>/<name>.csv (columns y, cl and the predictors; the constant added by lm) gives
# <folder>/<name>.out.csv: one row per coefficient (term, se, df, p, ci_low, ci_high), 17 digits.
suppressMessages(library(clubSandwich))
args <- commandArgs(trailingOnly = TRUE)
folder <- args[1]
level <- as.numeric(args[2])
for (path in list.files(folder, pattern = "^[a-z0-9_]+\\.csv$", full.names = TRUE)) {
  d <- read.csv(path)
  predictors <- setdiff(names(d), c("y", "cl"))
  fit <- lm(reformulate(predictors, response = "y"), data = d)
  tested <- coef_test(fit, vcov = "CR2", cluster = d$cl, test = "Satterthwaite")
  interval <- conf_int(fit, vcov = "CR2", cluster = d$cl, test = "Satterthwaite", level = level)
  out <- data.frame(
    term = c("const", predictors),
    se = sprintf("%.17g", tested$SE),
    df = sprintf("%.17g", tested$df_Satt),
    p = sprintf("%.17g", tested$p_Satt),
    ci_low = sprintf("%.17g", interval$CI_L),
    ci_high = sprintf("%.17g", interval$CI_U)
  )
  write.csv(out, sub("\\.csv$", ".out.csv", path), row.names = FALSE, quote = FALSE)
}
