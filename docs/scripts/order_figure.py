"""Figure: where every float16 bit pattern sits in IEEE 754 total order.

Left: the totalOrder key nanstats computes (:meth:`FloatType.bits_to_keys
<nanstats.core.floats.FloatType.bits_to_keys>`) against the bit pattern read
as an unsigned integer, for all 65,536 float16 patterns.  Right: the same
patterns sorted by key, from -NaN up to +NaN, with their values (NaNs drawn
at the ends).  Writes ``docs/_generated/total_order.png``; run by
``docs/conf.py`` at every build.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from nanstats.core.floats import FLOAT16  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "_generated" / "total_order.png"


def classes(bits: np.ndarray) -> dict[str, np.ndarray]:
    """Boolean masks of the kinds of float16 patterns."""
    magnitude = bits & FLOAT16.abs_mask
    negative = bits >= FLOAT16.sign_mask
    nan = magnitude > FLOAT16.inf_bits
    inf = magnitude == FLOAT16.inf_bits
    zero = magnitude == 0
    subnormal = (magnitude > 0) & (magnitude < 0x0400)
    finite = ~nan & ~inf & ~zero & ~subnormal
    return {
        "-NaN": nan & negative, "+NaN": nan & ~negative,
        "±inf": inf, "±0.0": zero, "subnormal": subnormal,
        "-normal": finite & negative, "+normal": finite & ~negative,
    }


COLOURS = {"-NaN": "tab:purple", "+NaN": "tab:red", "±inf": "black", "±0.0": "tab:green",
           "subnormal": "tab:orange", "-normal": "tab:blue", "+normal": "tab:cyan"}


def main() -> None:
    bits = np.arange(1 << 16, dtype=np.uint16)
    keys = FLOAT16.bits_to_keys(bits)
    kinds = classes(bits.astype(np.int64))
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2), layout="constrained")
    for name, mask in kinds.items():
        left.scatter(bits[mask], keys[mask], s=1.5, color=COLOURS[name], label=name,
                     rasterized=True)
    left.set_xlabel("bit pattern (as unsigned 16-bit integer)")
    left.set_ylabel("totalOrder key (signed)")
    left.set_title("float16: key against bits")
    left.legend(markerscale=6, fontsize=8, loc="lower left")
    left.set_xticks([0, 0x3C00, 0x7C00, 0xBC00, 0xFC00],
                    ["0000\n(+0.0)", "3c00\n(1.0)", "7c00\n(+inf)", "bc00\n(-1.0)",
                     "fc00\n(-inf)"], fontsize=7)
    left.annotate("+NaN: 7c01…7fff,\nabove +inf", (0x7E00, 32500), (0x0800, 27000),
                  fontsize=7, arrowprops={"arrowstyle": "->"})
    left.annotate("8000 (-0.0) just\nbelow +0.0", (0x8000, -1), (0x8A00, 9000),
                  fontsize=7, arrowprops={"arrowstyle": "->"})
    left.annotate("-NaN: fc01…ffff,\nbelow -inf", (0xFE00, -32500), (0x9C00, -31000),
                  fontsize=7, arrowprops={"arrowstyle": "->"})

    order = np.argsort(keys, kind="stable")
    ranked = bits[order]
    values = ranked.view(np.float16).astype(np.float64)
    rank = np.arange(ranked.size)
    sorted_kinds = {k: m[order] for k, m in kinds.items()}
    finite = ~(sorted_kinds["-NaN"] | sorted_kinds["+NaN"])
    right.plot(rank[finite], np.clip(values[finite], -7e4, 7e4), color="tab:blue", lw=1)
    for name in ("-NaN", "+NaN"):
        m = sorted_kinds[name]
        right.axvspan(rank[m][0], rank[m][-1], color=COLOURS[name], alpha=0.25, label=name)
    right.set_yscale("symlog", linthresh=1e-4)
    right.set_xlabel("position in total order (rank of the key)")
    right.set_ylabel("value (symlog; ±inf at the ends)")
    right.set_title("sorted by key: from -NaN up to +NaN")
    right.legend(fontsize=8, loc="upper left", bbox_to_anchor=(0.03, 1.0))
    OUT.parent.mkdir(exist_ok=True)
    fig.savefig(OUT, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
