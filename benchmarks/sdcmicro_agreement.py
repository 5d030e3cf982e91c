"""anonset's survey tools against sdcMicro itself: the same tables, sdcMicro run in R, every figure compared.

Needs ``Rscript`` with the sdcMicro package installed (on Debian 12:
``apt-get install r-base-core r-base-dev`` and the ``r-cran-*`` packages
sdcMicro imports, then ``R CMD INSTALL`` of its sources).  Without them the
script says so and stops.

The tables: sdcMicro's own ``testdata`` (4,580 records, seven key variables,
sampling weights) with 4% of every key variable blanked (R's ``set.seed(1)``),
its ``testdata2`` (the table of its localSuppression tests, with the age
groups of those tests as strata), and a seeded table of this script (1,000
records, three numeric variables, 3% of one missing) for microaggregation.
sdcMicro's data stay in its package: R writes them to a temporary folder,
which this script reads and removes.

Printed: for each figure, the largest difference between anonset and
sdcMicro (or whether the same cells were blanked, with the counts); the
information loss and interval disclosure are compared on sdcMicro's own
MDAV release.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from _report import header

from anonset.methods.local_suppression.blanking import blank_to_k
from anonset.methods.microaggregation.mdav import mdav
from anonset.methods.microaggregation.ranking import individual_ranking
from anonset.metrics.perturbation import perturbation_loss
from anonset.risk.perturbed import interval_disclosure
from anonset.risk.suda2 import suda2
from anonset.risk.survey import individual_risk, key_codes, key_frequencies

KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]

R_SCRIPT = """
suppressMessages(library(sdcMicro))
data(testdata)
td <- testdata[, c({keys}, "sampling_weight")]
set.seed(1)
for (v in c({keys})) td[[v]][runif(nrow(td)) < 0.04] <- NA
write.csv(td, "testdata.csv", row.names = FALSE)
f <- freqCalc(td, keyVars = c({keys}), w = "sampling_weight")
write.csv(data.frame(fk = f$fk, Fk = f$Fk, rk = indivRisk(f)$rk, rke = indivRisk(f, method = "exact")$rk),
          "risk.csv", row.names = FALSE)
s <- suda2(td, variables = c({keys}))
write.csv(data.frame(score = s$score, dis = s$disScore), "suda.csv", row.names = FALSE)
write.csv(s$attribute_contributions, "contributions.csv", row.names = FALSE)
data(testdata2)
testdata2$ageG <- cut(testdata2$age, 5, labels = paste0("AG", 1:5))
inp <- testdata2[, c({keys}, "ageG")]
write.csv(inp, "testdata2.csv", row.names = FALSE)
for (k in c(2, 3, 5)) write.csv(localSuppression(inp, keyVars = 1:7, k = k)$xAnon, sprintf("ls_%d.csv", k),
                                row.names = FALSE)
write.csv(kAnon(inp, keyVars = 1:7, strataVars = 8)$xAnon, "ls_strata.csv", row.names = FALSE)
x <- read.csv("numbers.csv")
for (k in c(3, 5, 10)) write.csv(microaggregation(x, variables = names(x), method = "mdav", aggr = k)$mx,
                                 sprintf("mdav_%d.csv", k), row.names = FALSE)
xm <- read.csv("mdav_3.csv")
write.csv(data.frame(il1s = dUtility(x, xm = xm, method = "IL1s"), eigen = dUtility(x, xm = xm, method = "eigen"),
                     drisk = dRisk(x, xm = xm), drisk20 = dRisk(x, xm = xm, k = 0.2)), "loss.csv", row.names = FALSE)
full <- x[complete.cases(x), ]
write.csv(full, "numbers_full.csv", row.names = FALSE)
write.csv(microaggregation(full, variables = names(x), method = "onedims", aggr = 3)$mx, "onedims.csv",
          row.names = FALSE)
"""


def _numbers(path: Path) -> None:
    rng = np.random.default_rng(5)
    n = 1000
    table = pd.DataFrame({"a": rng.normal(50, 10, n).round(1), "b": rng.lognormal(8, 1, n).round(0),
                          "c": rng.integers(0, 5, n).astype(float)})
    table.loc[rng.random(n) < 0.03, "b"] = np.nan
    table.to_csv(path, index=False)


def _largest(ours: np.ndarray, theirs: np.ndarray) -> str:
    """The largest difference where both give a number, and where only one does."""
    only_theirs_nan = int((np.isnan(theirs) & ~np.isnan(ours)).sum())
    only_ours_nan = int((np.isnan(ours) & ~np.isnan(theirs)).sum())
    text = f"{np.nanmax(np.abs(ours - theirs)):.2g}"
    if only_theirs_nan:
        text += f" (sdcMicro gives NaN for {only_theirs_nan} records, anonset a number)"
    if only_ours_nan:
        text += f" (anonset gives NaN for {only_ours_nan} records, sdcMicro a number)"
    return text


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    header("benchmarks/sdcmicro_agreement.py")
    rscript = shutil.which("Rscript")
    if rscript is None or subprocess.run([rscript, "-e", "library(sdcMicro)"], capture_output=True).returncode:
        print("sdcMicro is not installed (Rscript and the R package sdcMicro are needed); nothing compared")
        return
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        _numbers(work / "numbers.csv")
        script = R_SCRIPT.replace("{keys}", ", ".join(f'"{k}"' for k in KEYS))
        done = subprocess.run([rscript, "-e", script], cwd=work, capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"R failed: {done.stderr.strip().splitlines()[-1]}")
        rows: list[tuple[str, str]] = []
        td = pd.read_csv(work / "testdata.csv")
        codes = key_codes(td, KEYS)
        freq = key_frequencies(codes, td["sampling_weight"].to_numpy())
        risk = pd.read_csv(work / "risk.csv")
        rows.append(("freqCalc fk, Fk (testdata, 4% missing, weights)",
                     f"{_largest(freq.fk, risk['fk'].to_numpy())}, {_largest(freq.Fk, risk['Fk'].to_numpy())}"))
        rows.append(("indivRisk approx, exact",
                     f"{_largest(individual_risk(freq), risk['rk'].to_numpy())},"
                     f" {_largest(individual_risk(freq, 'exact'), risk['rke'].to_numpy())}"))
        found = suda2(codes)
        suda = pd.read_csv(work / "suda.csv")
        contributions = pd.read_csv(work / "contributions.csv")["contribution"].to_numpy()
        rows.append(("suda2 scores, DIS scores, contributions (same table)",
                     f"{_largest(found.scores, suda['score'].to_numpy())},"
                     f" {_largest(found.dis_scores, suda['dis'].to_numpy())},"
                     f" {_largest(found.attribute_contributions, contributions)}"))
        td2 = pd.read_csv(work / "testdata2.csv")
        codes2 = key_codes(td2, KEYS)
        for label, name, k, strata in (("k = 2", "ls_2", 2, None), ("k = 3", "ls_3", 3, None),
                                       ("k = 5", "ls_5", 5, None),
                                       ("k = 2, age-group strata (kAnon)", "ls_strata", 2,
                                        pd.factorize(td2["ageG"])[0])):
            ours = blank_to_k(codes2, k, strata=strata).blanked
            theirs = pd.read_csv(work / f"{name}.csv")[KEYS].isna().to_numpy() & (codes2 >= 0)
            rows.append((f"localSuppression testdata2, {label}",
                         f"anonset {int(ours.sum())} cells, sdcMicro {int(theirs.sum())};"
                         f" {'the same cells' if np.array_equal(ours, theirs) else 'different cells'}"))
        numbers = pd.read_csv(work / "numbers.csv").to_numpy()
        for k in (3, 5, 10):
            reference = pd.read_csv(work / f"mdav_{k}.csv").to_numpy()
            rows.append((f"mdav k = {k} (1,000 records, 3 variables, 3% missing)",
                         _largest(mdav(numbers, k).values, reference)))
        loss = pd.read_csv(work / "loss.csv").iloc[0]
        released = pd.read_csv(work / "mdav_3.csv").to_numpy()
        ours = perturbation_loss(numbers, released)
        rows.append(("dUtility IL1s, eigen of the mdav k = 3 release",
                     f"{abs(ours['il1s'] - loss['il1s']):.2g}, {abs(ours['eigen'] - loss['eigen']):.2g}"))
        rows.append(("dRisk (interval disclosure) k = 0.05, 0.2",
                     f"{abs(interval_disclosure(numbers, released) - loss['drisk']):.2g},"
                     f" {abs(interval_disclosure(numbers, released, 0.2) - loss['drisk20']):.2g}"))
        full = pd.read_csv(work / "numbers_full.csv").to_numpy()
        rows.append(("onedims (individual ranking) k = 3",
                     _largest(individual_ranking(full, 3), pd.read_csv(work / "onedims.csv").to_numpy())))
    width = max(len(label) for label, _ in rows)
    print(f"{'figure'.ljust(width)}  largest difference from sdcMicro")
    for label, result in rows:
        print(f"{label.ljust(width)}  {result}")


if __name__ == "__main__":
    main()
