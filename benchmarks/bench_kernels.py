"""Each reference kernel against PyTorch CPU, in one run: median time ratio and peak extra memory.

python -m benchmarks.bench_kernels [--repeats 3]
"""

from __future__ import annotations

import argparse

from benchmarks._harness import measure

MODULES = [
    "benchmarks.kernels.elu_backward",
    "benchmarks.kernels.max_pool3d_with_argmax_backward",
    "benchmarks.kernels.max_pool2d_with_mask_backward",
    "benchmarks.kernels.convolution_backward",
    "benchmarks.kernels.multi_scale_deformable_attention_grad",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'kernel':58s} {'numpy s':>9s} {'torch s':>9s} {'ratio':>6s} {'np MiB':>8s} {'torch MiB':>9s}")
    for module in MODULES:
        r = measure(module, args.repeats)
        print(
            f"{r['title'][:58]:58s} {r['numpy']['median_s']:9.3f} {r['torch']['median_s']:9.3f} {r['ratio']:6.2f} "
            f"{r['numpy']['peak_extra_mib']:8.1f} {r['torch']['peak_extra_mib']:9.1f}"
        )


if __name__ == "__main__":
    main()
