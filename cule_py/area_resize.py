"""Area-weighted downscaling ("INTER_AREA"), rounded the way the OpenCV build inside ale-py's
AtariVectorEnv rounds, written from the method's definition (not from OpenCV's code).

The method: destination cell `d` of a dimension covers the source interval [d*s, (d+1)*s) with
s = src/dst; each source sample contributes its overlap with that interval divided by the cell's
width. Two dimensions are separable: a source row is first reduced along x into `buf`, then
rows are accumulated along y. The arithmetic that makes the result bit-exact:

* the weights are computed in double and stored as float32;
* `buf[dx] += float32(pixel) * alpha` and `sum[dx] += beta * buf[dx]`, both float32, each
  product rounded to float32 before the addition (no fused multiply-add), in the order of the
  tables below (source samples in increasing order within a cell);
* the first source row of a destination row starts its sum (0 + beta*buf);
* the result is rounded to the nearest integer, ties to even, and clamped to 0..255.

`area_table(src, dst)` gives the (dst, src, weight) triples in that order, `tap_major_table` the
same by layer (each destination's k-th tap; the CPU kernels' form); `resize_area` is the numpy
reference the device code (cule_py/kernels/agent/agent_step.py) is tested against.
Only downscaling with a non-integer ratio in some dimension is this path (84x84 from 210x160 or
250x160 is); integer ratios in both dimensions and upscaling are refused.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["area_table", "tap_major_table", "destination_major_table", "resize_area",
           "check_supported"]


def check_supported(src_h: int, src_w: int, dst_h: int, dst_w: int) -> None:
    if not (0 < dst_h <= src_h and 0 < dst_w <= src_w):
        raise NotImplementedError(f"area resize only downscales: {src_h}x{src_w} -> "
                                  f"{dst_h}x{dst_w} is not supported")
    if src_h % dst_h == 0 and src_w % dst_w == 0 and (src_h, src_w) != (dst_h, dst_w):
        raise NotImplementedError(f"{src_h}x{src_w} -> {dst_h}x{dst_w} has integer ratios in both "
                                  f"dimensions (a different rounding path); not supported")


def area_table(src: int, dst: int):
    """(dst_index int32[k], src_index int32[k], weight float32[k]) in accumulation order."""
    if src == dst:
        idx = np.arange(src, dtype=np.int32)
        return idx, idx.copy(), np.ones(src, np.float32)
    scale = 1.0 / (dst / src)
    d_idx, s_idx, w = [], [], []
    for d in range(dst):
        lo = d * scale
        hi = lo + scale
        width = min(scale, src - lo)
        first = math.ceil(lo)
        last = min(math.floor(hi), src - 1)
        first = min(first, last)
        if first - lo > 1e-3:
            d_idx.append(d)
            s_idx.append(first - 1)
            w.append((first - lo) / width)
        for s in range(first, last):
            d_idx.append(d)
            s_idx.append(s)
            w.append(1.0 / width)
        if hi - last > 1e-3:
            d_idx.append(d)
            s_idx.append(last)
            w.append(min(min(hi - last, 1.0), width) / width)
    return (np.array(d_idx, np.int32), np.array(s_idx, np.int32),
            np.array(w, np.float64).astype(np.float32))


def tap_major_table(d_idx, s_idx, weight):
    """area_table's triples laid out by layer: entry `layer * dst + d` is destination d's tap
    number `layer` (each destination padded to the most taps any has, with weight 0 on source
    0). Summed layer by layer from the first, each destination's sum is bit for bit the one in
    table order: a padding tap adds float32 0 * pixel = +0, which changes no sum (every sum starts
    with a real tap, so none is -0). The CPU's kernels read the x table this way."""
    d_idx, s_idx, weight = (np.asarray(a) for a in (d_idx, s_idx, weight))
    dst = int(d_idx.max()) + 1
    layers = _layers(d_idx)
    out_d = np.tile(np.arange(dst, dtype=np.int32), len(layers))
    out_s = np.zeros(len(layers) * dst, np.int32)
    out_w = np.zeros(len(layers) * dst, np.float32)
    for layer, entries in enumerate(layers):
        out_s[layer * dst + d_idx[entries]] = s_idx[entries]
        out_w[layer * dst + d_idx[entries]] = weight[entries]
    return out_d, out_s, out_w


def destination_major_table(d_idx, s_idx, weight):
    """tap_major_table's triples back in area_table's order (the GPU kernels' form), the
    padding taps dropped."""
    d_idx, s_idx, weight = (np.asarray(a) for a in (d_idx, s_idx, weight))
    dst = int(d_idx.max()) + 1
    layers = len(d_idx) // dst
    order = [layer * dst + d for d in range(dst) for layer in range(layers)
             if layer == 0 or weight[layer * dst + d] != 0]
    return d_idx[order], s_idx[order], weight[order]


def _layers(d_idx):
    """Split the table into layers where each destination index occurs at most once, keeping
    each destination's entries in order (layer j holds every destination's j-th entry)."""
    pos = np.zeros(len(d_idx), np.int64)
    count: dict[int, int] = {}
    for k, d in enumerate(d_idx):
        pos[k] = count.get(int(d), 0)
        count[int(d)] = pos[k] + 1
    return [np.nonzero(pos == j)[0] for j in range(int(pos.max()) + 1)]


def _round_half_even_u8(x: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(x), 0, 255).astype(np.uint8)


def resize_area(image: np.ndarray, dst_h: int, dst_w: int) -> np.ndarray:
    """image (H, W) or (H, W, C) uint8 -> (dst_h, dst_w[, C]) uint8, float32 as described."""
    img = np.asarray(image)
    squeeze = img.ndim == 2
    if squeeze:
        img = img[:, :, None]
    h, w, c = img.shape
    check_supported(h, w, dst_h, dst_w)
    xd, xs, xa = area_table(w, dst_w)
    yd, ys, ya = area_table(h, dst_h)
    xlayers = _layers(xd)
    src = img.astype(np.float32)
    out = np.zeros((dst_h, dst_w, c), np.uint8)
    total = np.zeros((dst_w, c), np.float32)
    prev = int(yd[0])
    for j in range(len(yd)):
        dy, sy, beta = int(yd[j]), int(ys[j]), ya[j]
        buf = np.zeros((dst_w, c), np.float32)
        row = src[sy]
        for layer in xlayers:
            buf[xd[layer]] = buf[xd[layer]] + row[xs[layer]] * xa[layer][:, None]
        if dy != prev:
            out[prev] = _round_half_even_u8(total)
            total = beta * buf
            prev = dy
        else:
            total = total + beta * buf
    out[prev] = _round_half_even_u8(total)
    return out[:, :, 0] if squeeze else out
