# The engine's crossed mixed model (cueshift.stats.crossed_model) rebuilt from counts.csv alone and
# fitted by lme4::lmer (REML). Usage: Rscript lme4_crossed.R DIR (reads DIR/counts.csv, writes
# DIR/lmer_fixef.csv and DIR/lmer_varcomp.csv).
suppressMessages(library(lme4))
dir <- commandArgs(TRUE)[1]
d <- read.csv(file.path(dir, "counts.csv"), stringsAsFactors = FALSE)
keys <- c("model_id", "face_id", "image_id", "role", "variation_category", "feature_key", "scenario_id",
          "scenario_category")
phi <- aggregate(d[, c("favourable", "valid")], by = d[, keys], FUN = sum)  # summed over orderings
phi$phi <- ifelse(phi$valid > 0, phi$favourable / phi$valid, NA)
base <- phi[phi$role == "base", c("model_id", "face_id", "scenario_id", "phi")]
names(base)[4] <- "phi_base"
variation <- phi[phi$role == "variation" & tolower(phi$feature_key) != "placebo", ]
delta <- merge(variation, base, by = c("model_id", "face_id", "scenario_id"))
delta$delta <- delta$phi - delta$phi_base
delta <- delta[!is.na(delta$delta), ]
merged <- delta$variation_category %in% c("Makeup", "Lip makeup")  # LME_CATEGORY_MAP
delta$variation_category[merged] <- "Makeup & lips"
# one cell per face x variation category x scenario: the mean over models and values
cells <- aggregate(delta ~ face_id + variation_category + scenario_category + scenario_id, data = delta,
                   FUN = mean)
sorted <- function(x) factor(x, levels = sort(unique(x), method = "radix"))  # patsy's baseline
cells$variation_category <- sorted(cells$variation_category)
cells$scenario_category <- sorted(cells$scenario_category)
fit <- lmer(delta ~ variation_category + scenario_category + (1 | face_id) + (1 | scenario_id),
            data = cells, REML = TRUE,
            control = lmerControl(optimizer = "nloptwrap",
                                  optCtrl = list(xtol_abs = 1e-12, ftol_abs = 1e-14, maxeval = 1e5)))
beta <- fixef(fit)
term <- c("Intercept",
          paste0("C(variation_category)[T.", levels(cells$variation_category)[-1], "]"),
          paste0("C(scenario_category)[T.", levels(cells$scenario_category)[-1], "]"))
stopifnot(length(term) == length(beta))
cov <- as.matrix(vcov(fit))
wald <- sapply(c("variation_category", "scenario_category"), function(f) {
  i <- grep(paste0("^", f), names(beta))
  drop(t(beta[i]) %*% solve(cov[i, i], beta[i])) / length(i)
})
write.csv(data.frame(term = term, estimate = unname(beta), se = sqrt(diag(cov))),
          file.path(dir, "lmer_fixef.csv"), row.names = FALSE)
vc <- as.data.frame(VarCorr(fit))
write.csv(data.frame(source = c("face", "scenario", "residual", "wald_variation_category",
                                "wald_scenario_category", "n"),
                     estimate = c(vc$vcov[vc$grp == "face_id"], vc$vcov[vc$grp == "scenario_id"],
                                  vc$vcov[vc$grp == "Residual"], wald, nrow(cells))),
          file.path(dir, "lmer_varcomp.csv"), row.names = FALSE)
