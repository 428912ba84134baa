#!/usr/bin/python3
"""Generator of the gradient conformance vectors in this folder.

What it does
    Builds small WebNN graphs (one operator each, plus a few multi-operator
    graphs), evaluates them with reference implementations written in PyTorch
    that follow the WebNN specification (not PyTorch's defaults), and writes
    test cases in the WPT graph format with the "gradients" extension (see
    tests/conformance/wpt/README.md): the forward expected outputs, a random
    seed (upstream gradient) per output, and the expected gradient of
    sum(output * seed) with respect to every floating-point graph input.

    Everything is computed in float64 with torch autograd from inputs that are
    already rounded to the case's data type (float32, a few float16 cases);
    outputs and gradients are rounded to that data type when written. Random
    data is drawn from a torch.Generator seeded from the case name (CRC-32),
    so the output is deterministic and adding a case changes no other case.

How to run
    From the repository root:
        /usr/bin/python3 tests/conformance/gradients/generate.py
    It rewrites the *.json files next to this script (one per operator
    family). Only torch (1.13 from Debian) and the standard library are used.
    Check the result with
        build-me/bin/webnnm-conformance --gradients tests/conformance/gradients/*.json
"""
import json
import math
import os
import zlib

import torch
import torch.nn.functional as F

torch.manual_seed(0)  # not used for data (each case has its own generator)
torch.set_default_dtype(torch.float64)

OUT_DIR = os.path.dirname(os.path.abspath(__file__))
GENERATOR = "tests/conformance/gradients/generate.py"

# Default tolerances: (atol, rtol).
FWD_TOL = (5e-5, 1e-4)
GRAD_TOL = (1e-4, 1e-3)
F16_TOL = (2e-2, 1e-2)

# Smallest distance from a kink or a tie that the data must keep (checked
# while the reference runs, see guard()).
KINK_MARGIN = 2e-3


# ---------------------------------------------------------------------------
# Data specifications (materialised per case with the case's generator)
# ---------------------------------------------------------------------------
class Data:
    """Float data: kind is uniform | away | distinct | grid | normal | values."""

    def __init__(self, shape, kind="uniform", lo=-1.0, hi=1.0, kinks=(0.0,),
                 margin=0.05, values=None, constant=False):
        self.shape, self.kind, self.lo, self.hi = list(shape), kind, lo, hi
        self.kinks, self.margin, self.values = kinks, margin, values
        self.constant = constant

    def draw(self, rng):
        n = math.prod(self.shape)
        if self.kind == "values":
            return torch.tensor(self.values, dtype=torch.float64).reshape(self.shape)
        if self.kind == "normal":
            t = torch.randn(n, generator=rng)
        elif self.kind == "grid":
            # lo + (k + phase) * step for a random permutation k of 0..n-1.
            perm = torch.randperm(n, generator=rng).to(torch.float64)
            t = self.lo + (perm + self.margin) * self.hi
        elif self.kind == "distinct":
            # A shuffled grid: any two values differ by at least the spacing.
            spacing = max((self.hi - self.lo) / n, self.margin)
            perm = torch.randperm(n, generator=rng).to(torch.float64)
            jitter = torch.rand(n, generator=rng) * 0.4 + 0.3
            t = self.lo + (perm + jitter) * spacing
            t = t - (t.max() + t.min()) / 2 + (self.lo + self.hi) / 2
        else:
            t = self.lo + (self.hi - self.lo) * torch.rand(n, generator=rng)
            if self.kind == "away":
                for p in self.kinks:
                    d = t - p
                    close = d.abs() < self.margin
                    sign = torch.where(d >= 0, 1.0, -1.0)
                    t = torch.where(close, p + sign * (self.margin + d.abs()), t)
        return t.reshape(self.shape)


def U(*shape, lo=-1.0, hi=1.0, constant=False):
    return Data(shape, "uniform", lo, hi, constant=constant)


def P(*shape, lo=0.2, hi=2.0, constant=False):  # positive
    return Data(shape, "uniform", lo, hi, constant=constant)


def A(*shape, kinks=(0.0,), lo=-1.0, hi=1.0, margin=0.05, constant=False):  # away from kinks
    return Data(shape, "away", lo, hi, kinks=kinks, margin=margin, constant=constant)


def S(*shape, lo=-1.0, hi=1.0, margin=0.05, constant=False):  # distinct values
    return Data(shape, "distinct", lo, hi, margin=margin, constant=constant)


def G(*shape, lo=-1.0, step=0.4, phase=0.25, constant=False):
    """Shuffled grid lo + (k + phase) * step: two grids with the same step and
    phases 0.25 / 0.75 never come closer than step / 2 (for max / min)."""
    return Data(shape, "grid", lo, step, margin=phase, constant=constant)


def V(shape, values, constant=False):  # explicit values
    return Data(shape, "values", values=values, constant=constant)


class Ints:
    """Integer input (indices, where's condition, quantized data): no gradient."""

    def __init__(self, shape, values, dtype="int32", constant=True):
        self.shape, self.values, self.dtype, self.constant = list(shape), list(values), dtype, constant
        assert len(self.values) == math.prod(self.shape)


def I(shape, values, dtype="int32", constant=True):
    return Ints(shape, values, dtype, constant)


# ---------------------------------------------------------------------------
# Differentiability guard
# ---------------------------------------------------------------------------
class NotDifferentiable(ValueError):
    pass


def guard(distance, what):
    """distance: tensor of distances from kinks/ties; all must be > KINK_MARGIN."""
    if distance.numel() and distance.min().item() < KINK_MARGIN:
        raise NotDifferentiable(f"{what}: data too close to a kink or tie "
                         f"({distance.min().item():.4g})")


def guard_points(x, points, what):
    for p in points:
        guard((x.detach() - p).abs(), what)


def guard_top2(x, dims, what, largest=True):
    """The best and second best values over dims must differ."""
    x = x.detach()
    if not largest:
        x = -x
    keep = [d for d in range(x.dim()) if d not in dims]
    x = x.permute(keep + list(dims)).reshape([x.shape[d] for d in keep] + [-1])
    if x.shape[-1] < 2:
        return
    top = torch.topk(x, 2, dim=-1).values
    guard(top[..., 0] - top[..., 1], what)


# ---------------------------------------------------------------------------
# Reference implementations (WebNN semantics), keyed by MLGraphBuilder method.
# Each takes the method's positional arguments in order, then the options.
# ---------------------------------------------------------------------------
REF = {}


def ref(name):
    def register(fn):
        REF[name] = fn
        return fn
    return register


def _unary(name, fn, kinks=None):
    def run(x, options=None):
        if kinks is not None:
            guard_points(x, kinks, name)
        return fn(x)
    REF[name] = run


_unary("abs", torch.abs, kinks=[0.0])
_unary("cos", torch.cos)
_unary("erf", torch.erf)
_unary("exp", torch.exp)
_unary("identity", lambda x: x * 1.0)
_unary("log", torch.log)
_unary("neg", torch.neg)
_unary("reciprocal", torch.reciprocal)
_unary("relu", torch.relu, kinks=[0.0])
_unary("sigmoid", torch.sigmoid)
_unary("sin", torch.sin)
_unary("sqrt", torch.sqrt)
_unary("tan", torch.tan)
_unary("tanh", torch.tanh)
_unary("softsign", lambda x: x / (1 + x.abs()), kinks=[0.0])
_unary("softplus", lambda x: torch.log(1 + torch.exp(x)))
_unary("gelu", lambda x: 0.5 * x * (1 + torch.erf(x / math.sqrt(2.0))))
_unary("hardSwish", lambda x: x * torch.clamp(x + 3, 0, 6) / 6, kinks=[-3.0, 3.0])


@ref("elu")
def elu(x, options=None):
    alpha = (options or {}).get("alpha", 1.0)
    guard_points(x, [0.0], "elu")
    return torch.where(x > 0, x, alpha * (torch.exp(x) - 1))


@ref("leakyRelu")
def leaky_relu(x, options=None):
    alpha = (options or {}).get("alpha", 0.01)
    guard_points(x, [0.0], "leakyRelu")
    return torch.where(x >= 0, x, alpha * x)


@ref("linear")
def linear(x, options=None):
    o = options or {}
    return o.get("alpha", 1.0) * x + o.get("beta", 0.0)


@ref("hardSigmoid")
def hard_sigmoid(x, options=None):
    o = options or {}
    alpha, beta = o.get("alpha", 0.2), o.get("beta", 0.5)
    y = alpha * x + beta
    guard_points(y, [0.0, 1.0], "hardSigmoid")
    return torch.clamp(y, 0.0, 1.0)


@ref("clamp")
def clamp(x, options=None):
    o = options or {}
    lo, hi = o.get("minValue", -math.inf), o.get("maxValue", math.inf)
    guard_points(x, [v for v in (lo, hi) if math.isfinite(v)], "clamp")
    return torch.clamp(x, lo, hi)


@ref("softmax")
def softmax(x, axis, options=None):
    return torch.softmax(x, dim=axis)


for _name, _fn in {"add": torch.add, "sub": torch.sub, "mul": torch.mul,
                   "div": torch.div, "pow": torch.pow}.items():
    REF[_name] = (lambda fn: lambda a, b, options=None: fn(a, b))(_fn)


@ref("max")
def maximum(a, b, options=None):
    guard((a - b).detach().abs(), "max")
    return torch.maximum(a, b)


@ref("min")
def minimum(a, b, options=None):
    guard((a - b).detach().abs(), "min")
    return torch.minimum(a, b)


@ref("prelu")
def prelu(x, slope, options=None):
    guard_points(x, [0.0], "prelu")
    return torch.where(x >= 0, x, slope * x)


@ref("where")
def where(condition, true_value, false_value, options=None):
    return torch.where(condition != 0, true_value, false_value)


@ref("dequantizeLinear")
def dequantize_linear(x, scale, zero_point, options=None):
    def blocked(t):  # broadcast, or repeat each element over its block
        t = t.reshape([1] * (x.dim() - t.dim()) + list(t.shape))
        for d in range(x.dim()):
            if t.shape[d] not in (1, x.shape[d]):
                t = torch.repeat_interleave(t, x.shape[d] // t.shape[d], dim=d)
        return t
    return (x.to(torch.float64) - blocked(zero_point).to(torch.float64)) * blocked(scale)


# --- reductions -------------------------------------------------------------
def _reduce(name, fn):
    def run(x, options=None):
        o = options or {}
        axes = sorted(a % max(x.dim(), 1) for a in o.get("axes", range(x.dim())))
        keep = o.get("keepDimensions", False)
        if name in ("reduceMax", "reduceMin"):
            guard_top2(x, axes, name, largest=(name == "reduceMax"))
        if name == "reduceL1":
            guard_points(x, [0.0], name)
        y = fn(x, axes)
        for a in axes:  # fn reduces with keepdim=True
            assert y.shape[a] == 1
        return y if keep else y.reshape([s for d, s in enumerate(x.shape) if d not in axes])
    REF[name] = run


def _prod(x, axes):
    for a in axes:
        x = torch.prod(x, dim=a, keepdim=True)
    return x


_reduce("reduceSum", lambda x, ax: torch.sum(x, dim=ax, keepdim=True))
_reduce("reduceMean", lambda x, ax: torch.mean(x, dim=ax, keepdim=True))
_reduce("reduceL1", lambda x, ax: torch.sum(x.abs(), dim=ax, keepdim=True))
_reduce("reduceL2", lambda x, ax: torch.sqrt(torch.sum(x * x, dim=ax, keepdim=True)))
_reduce("reduceSumSquare", lambda x, ax: torch.sum(x * x, dim=ax, keepdim=True))
_reduce("reduceLogSum", lambda x, ax: torch.log(torch.sum(x, dim=ax, keepdim=True)))
_reduce("reduceLogSumExp", lambda x, ax: torch.logsumexp(x, dim=ax, keepdim=True))
_reduce("reduceMax", lambda x, ax: torch.amax(x, dim=ax, keepdim=True))
_reduce("reduceMin", lambda x, ax: torch.amin(x, dim=ax, keepdim=True))
_reduce("reduceProduct", _prod)


@ref("cumulativeSum")
def cumulative_sum(x, axis, options=None):
    o = options or {}
    if o.get("reversed", False):
        x = torch.flip(x, [axis])
    y = torch.cumsum(x, dim=axis)
    if o.get("exclusive", False):
        y = y - x
    if o.get("reversed", False):
        y = torch.flip(y, [axis])
    return y


# --- matrix -----------------------------------------------------------------
@ref("gemm")
def gemm(a, b, options=None):
    o = options or {}
    if o.get("aTranspose", False):
        a = a.t()
    if o.get("bTranspose", False):
        b = b.t()
    y = o.get("alpha", 1.0) * (a @ b)
    if "c" in o:
        y = y + o.get("beta", 1.0) * o["c"]
    return y


@ref("matmul")
def matmul(a, b, options=None):
    return torch.matmul(a, b)


# --- data movement ----------------------------------------------------------
@ref("concat")
def concat(inputs, axis, options=None):
    return torch.cat(inputs, dim=axis)


@ref("expand")
def expand(x, new_shape, options=None):
    return x.expand(torch.broadcast_shapes(tuple(x.shape), tuple(new_shape))) * 1.0


@ref("reshape")
def reshape(x, new_shape, options=None):
    return x.reshape(new_shape)


@ref("transpose")
def transpose(x, options=None):
    perm = (options or {}).get("permutation", list(reversed(range(x.dim()))))
    return x.permute(perm)


@ref("reverse")
def reverse(x, options=None):
    axes = (options or {}).get("axes", list(range(x.dim())))
    return torch.flip(x, axes) if axes else x * 1.0


@ref("tile")
def tile(x, repetitions, options=None):
    return x.repeat(repetitions)


@ref("triangular")
def triangular(x, options=None):
    o = options or {}
    k = o.get("diagonal", 0)
    return torch.triu(x, k) if o.get("upper", True) else torch.tril(x, k)


@ref("slice")
def slice_(x, starts, sizes, options=None):
    strides = (options or {}).get("strides", [1] * x.dim())
    index = tuple(slice(s, s + n, st) for s, n, st in zip(starts, sizes, strides))
    return x[index]


@ref("split")
def split(x, splits, options=None):
    axis = (options or {}).get("axis", 0)
    if isinstance(splits, int):
        splits = [x.shape[axis] // splits] * splits
    return list(torch.split(x, splits, dim=axis))


@ref("pad")
def pad(x, beginning, ending, options=None):
    o = options or {}
    mode = o.get("mode", "constant")
    if mode == "constant":
        flat = []
        for b, e in reversed(list(zip(beginning, ending))):
            flat += [b, e]
        return F.pad(x, flat, mode="constant", value=o.get("value", 0.0))
    for d, (b, e) in enumerate(zip(beginning, ending)):
        n = x.shape[d]
        idx = torch.arange(-b, n + e)
        if mode == "edge":
            idx = idx.clamp(0, n - 1)
        elif mode == "reflection":
            idx = torch.where(idx < 0, -idx, idx)
            idx = torch.where(idx >= n, 2 * (n - 1) - idx, idx)
        else:
            raise ValueError(mode)
        x = torch.index_select(x, d, idx)
    return x


@ref("gather")
def gather(x, indices, options=None):
    axis = (options or {}).get("axis", 0)
    idx = indices.long()
    y = torch.index_select(x, axis, idx.reshape(-1))
    return y.reshape(list(x.shape[:axis]) + list(idx.shape) + list(x.shape[axis + 1:]))


@ref("gatherElements")
def gather_elements(x, indices, options=None):
    return torch.gather(x, (options or {}).get("axis", 0), indices.long())


@ref("gatherND")
def gather_nd(x, indices, options=None):
    idx = indices.long()
    k = idx.shape[-1]
    flat = idx.reshape(-1, k)
    y = x[tuple(flat[:, j] for j in range(k))]
    return y.reshape(list(idx.shape[:-1]) + list(x.shape[k:]))


@ref("scatterElements")
def scatter_elements(x, indices, updates, options=None):
    return torch.scatter(x, (options or {}).get("axis", 0), indices.long(), updates)


@ref("scatterND")
def scatter_nd(x, indices, updates, options=None):
    idx = indices.long()
    k = idx.shape[-1]
    flat = idx.reshape(-1, k)
    assert len(set(map(tuple, flat.tolist()))) == flat.shape[0], "scatterND indices must be distinct"
    upd = updates.reshape([flat.shape[0]] + list(x.shape[k:]))
    return x.index_put(tuple(flat[:, j] for j in range(k)), upd)


# --- convolution ------------------------------------------------------------
def _to_nchw(x, layout):
    return x.permute(0, 3, 1, 2) if layout == "nhwc" else x


def _from_nchw(y, layout):
    return y.permute(0, 2, 3, 1) if layout == "nhwc" else y


@ref("conv2d")
def conv2d(x, w, options=None):
    o = options or {}
    layout = o.get("inputLayout", "nchw")
    x = _to_nchw(x, layout)
    w = {"oihw": lambda t: t, "hwio": lambda t: t.permute(3, 2, 0, 1),
         "ohwi": lambda t: t.permute(0, 3, 1, 2),
         "ihwo": lambda t: t.permute(3, 0, 1, 2)}[o.get("filterLayout", "oihw")](w)
    t, b, l, r = o.get("padding", [0, 0, 0, 0])
    x = F.pad(x, [l, r, t, b])
    y = F.conv2d(x, w, bias=o.get("bias"), stride=o.get("strides", [1, 1]),
                 dilation=o.get("dilations", [1, 1]), groups=o.get("groups", 1))
    return _from_nchw(y, layout)


@ref("convTranspose2d")
def conv_transpose2d(x, w, options=None):
    o = options or {}
    layout = o.get("inputLayout", "nchw")
    x = _to_nchw(x, layout)
    w = {"iohw": lambda t: t, "hwoi": lambda t: t.permute(3, 2, 0, 1),
         "ohwi": lambda t: t.permute(3, 0, 1, 2)}[o.get("filterLayout", "iohw")](w)
    s = o.get("strides", [1, 1])
    d = o.get("dilations", [1, 1])
    pt, pb, pl, pr = o.get("padding", [0, 0, 0, 0])
    groups = o.get("groups", 1)
    full = F.conv_transpose2d(x, w, stride=s, dilation=d, groups=groups)
    kh, kw = w.shape[2], w.shape[3]
    base = [(x.shape[2] - 1) * s[0] + (kh - 1) * d[0] + 1 - pt - pb,
            (x.shape[3] - 1) * s[1] + (kw - 1) * d[1] + 1 - pl - pr]
    if "outputSizes" in o:
        out = list(o["outputSizes"])
    else:
        op = o.get("outputPadding", [0, 0])
        out = [base[0] + op[0], base[1] + op[1]]
    extra_h = max(0, pt + out[0] - full.shape[2])
    extra_w = max(0, pl + out[1] - full.shape[3])
    full = F.pad(full, [0, extra_w, 0, extra_h])
    y = full[:, :, pt:pt + out[0], pl:pl + out[1]]
    if "bias" in o:
        y = y + o["bias"].reshape(1, -1, 1, 1)
    return _from_nchw(y, layout)


# --- pooling ----------------------------------------------------------------
def _pool(kind):
    def run(x, options=None):
        o = options or {}
        layout = o.get("layout", "nchw")
        x = _to_nchw(x, layout)
        H, W = x.shape[2], x.shape[3]
        kh, kw = o.get("windowDimensions", [H, W])
        sh, sw = o.get("strides", [1, 1])
        dh, dw = o.get("dilations", [1, 1])
        pt, pb, pl, pr = o.get("padding", [0, 0, 0, 0])
        rnd = math.ceil if o.get("roundingType", o.get("outputShapeRounding", "floor")) == "ceil" else math.floor
        if "outputSizes" in o:
            oh, ow = o["outputSizes"]
        else:
            oh = rnd((H + pt + pb - (kh - 1) * dh - 1) / sh) + 1
            ow = rnd((W + pl + pr - (kw - 1) * dw - 1) / sw) + 1
        rows = []
        for i in range(oh):
            cols = []
            for j in range(ow):
                win = [x[:, :, h, w]
                       for h in (i * sh - pt + a * dh for a in range(kh)) if 0 <= h < H
                       for w in (j * sw - pl + b * dw for b in range(kw)) if 0 <= w < W]
                assert win, "empty pooling window"
                win = torch.stack(win, dim=-1)
                if kind == "max":
                    guard_top2(win, [2], "maxPool2d")
                    v = win.amax(dim=-1)
                elif kind == "average":
                    v = win.mean(dim=-1)
                else:
                    v = torch.sqrt((win * win).sum(dim=-1))
                cols.append(v)
            rows.append(torch.stack(cols, dim=-1))
        return _from_nchw(torch.stack(rows, dim=-2), layout)
    return run


REF["averagePool2d"] = _pool("average")
REF["l2Pool2d"] = _pool("l2")
REF["maxPool2d"] = _pool("max")


@ref("resample2d")
def resample2d(x, options=None):
    o = options or {}
    axes = o.get("axes", [2, 3])
    mode = o.get("mode", "nearest-neighbor")
    perm = [d for d in range(4) if d not in axes] + list(axes)
    xx = x.permute(perm)
    if "sizes" in o:
        size = list(o["sizes"])
    else:
        sc = o.get("scales", [1.0, 1.0])
        size = [math.floor(xx.shape[2] * sc[0]), math.floor(xx.shape[3] * sc[1])]
    if mode == "linear":
        # Half-pixel centres, source coordinates clamped at the border.
        y = F.interpolate(xx, size=size, mode="bilinear", align_corners=False)
    else:
        for k in range(2):
            assert size[k] % xx.shape[2 + k] == 0, "nearest-neighbor cases use integer up-scaling"
        y = F.interpolate(xx, size=size, mode="nearest")
    return y.permute([perm.index(d) for d in range(4)])


# --- normalization ----------------------------------------------------------
@ref("batchNormalization")
def batch_normalization(x, mean, variance, options=None):
    o = options or {}
    axis = o.get("axis", 1)
    shape = [1] * x.dim()
    shape[axis] = x.shape[axis]
    y = (x - mean.reshape(shape)) / torch.sqrt(variance.reshape(shape) + o.get("epsilon", 1e-5))
    if "scale" in o:
        y = y * o["scale"].reshape(shape)
    if "bias" in o:
        y = y + o["bias"].reshape(shape)
    return y


@ref("instanceNormalization")
def instance_normalization(x, options=None):
    o = options or {}
    layout = o.get("layout", "nchw")
    x = _to_nchw(x, layout)
    mean = x.mean(dim=(2, 3), keepdim=True)
    var = ((x - mean) ** 2).mean(dim=(2, 3), keepdim=True)
    y = (x - mean) / torch.sqrt(var + o.get("epsilon", 1e-5))
    if "scale" in o:
        y = y * o["scale"].reshape(1, -1, 1, 1)
    if "bias" in o:
        y = y + o["bias"].reshape(1, -1, 1, 1)
    return _from_nchw(y, layout)


@ref("layerNormalization")
def layer_normalization(x, options=None):
    o = options or {}
    axes = list(o.get("axes", range(1, x.dim())))
    mean = x.mean(dim=axes, keepdim=True) if axes else x
    var = ((x - mean) ** 2).mean(dim=axes, keepdim=True) if axes else x * 0
    y = (x - mean) / torch.sqrt(var + o.get("epsilon", 1e-5))

    def fit(t):  # scale/bias have the dims of x at axes, in the order of axes
        order = sorted(range(len(axes)), key=lambda k: axes[k])
        t = t.permute(order) if len(axes) > 1 else t
        shape = [1] * x.dim()
        for a in axes:
            shape[a] = x.shape[a]
        return t.reshape(shape)
    if "scale" in o:
        y = y * fit(o["scale"])
    if "bias" in o:
        y = y + fit(o["bias"])
    return y


# --- recurrent --------------------------------------------------------------
ACTIVATIONS = {"sigmoid": torch.sigmoid, "tanh": torch.tanh}


def _act(name):
    if name == "relu":
        def relu(t):
            guard_points(t, [0.0], "recurrent relu")
            return torch.relu(t)
        return relu
    return ACTIVATIONS[name]


def _gate_rows(t, layout, gate, hidden):
    k = layout.index(gate)
    return t[..., k * hidden:(k + 1) * hidden]


def _gru_step(x, w, r, h, hidden, b, rb, o):
    layout = o.get("layout", "zrn")
    f, g = [_act(a) for a in o.get("activations", ["sigmoid", "tanh"])]
    W = {k: _gate_rows(w.t(), layout, k, hidden) for k in "zrn"}  # [input, hidden]
    R = {k: _gate_rows(r.t(), layout, k, hidden) for k in "zrn"}
    B = {k: _gate_rows(b, layout, k, hidden) for k in "zrn"}
    RB = {k: _gate_rows(rb, layout, k, hidden) for k in "zrn"}
    z = f(x @ W["z"] + B["z"] + h @ R["z"] + RB["z"])
    rr = f(x @ W["r"] + B["r"] + h @ R["r"] + RB["r"])
    if o.get("resetAfter", True):
        n = g(x @ W["n"] + B["n"] + rr * (h @ R["n"] + RB["n"]))
    else:
        n = g(x @ W["n"] + B["n"] + (rr * h) @ R["n"] + RB["n"])
    return (1 - z) * n + z * h


@ref("gruCell")
def gru_cell(x, w, r, h, hidden, options=None):
    o = options or {}
    zeros = torch.zeros(3 * hidden)
    return _gru_step(x, w, r, h, hidden, o.get("bias", zeros), o.get("recurrentBias", zeros), o)


def _lstm_step(x, w, r, h, c, hidden, b, rb, p, o):
    layout = o.get("layout", "iofg")
    f_act, g_act, h_act = [_act(a) for a in o.get("activations", ["sigmoid", "tanh", "tanh"])]
    gate = {k: x @ _gate_rows(w.t(), layout, k, hidden) + h @ _gate_rows(r.t(), layout, k, hidden)
            + _gate_rows(b, layout, k, hidden) + _gate_rows(rb, layout, k, hidden) for k in "iofg"}
    # Peephole weights are ordered i, o, f whatever the layout; every gate's
    # peephole reads the previous cell state.
    peep = {k: p[..., j * hidden:(j + 1) * hidden] for j, k in enumerate("iof")}
    i = f_act(gate["i"] + peep["i"] * c)
    f = f_act(gate["f"] + peep["f"] * c)
    o_ = f_act(gate["o"] + peep["o"] * c)
    g = g_act(gate["g"])
    c_new = f * c + i * g
    return o_ * h_act(c_new), c_new


@ref("lstmCell")
def lstm_cell(x, w, r, h, c, hidden, options=None):
    o = options or {}
    z4, z3 = torch.zeros(4 * hidden), torch.zeros(3 * hidden)
    return list(_lstm_step(x, w, r, h, c, hidden, o.get("bias", z4), o.get("recurrentBias", z4),
                           o.get("peepholeWeight", z3), o))


def _directions(o):
    d = o.get("direction", "forward")
    return {"forward": [False], "backward": [True], "both": [False, True]}[d]


@ref("gru")
def gru(x, w, r, steps, hidden, options=None):
    o = options or {}
    batch = x.shape[1]
    outs, seqs = [], []
    for d, backward in enumerate(_directions(o)):
        zeros = torch.zeros(3 * hidden)
        b = o["bias"][d] if "bias" in o else zeros
        rb = o["recurrentBias"][d] if "recurrentBias" in o else zeros
        h = o["initialHiddenState"][d] if "initialHiddenState" in o else torch.zeros(batch, hidden)
        seq = [None] * steps
        for t in (reversed(range(steps)) if backward else range(steps)):
            h = _gru_step(x[t], w[d], r[d], h, hidden, b, rb, o)
            seq[t] = h  # at the position of the input step
        outs.append(h)
        seqs.append(torch.stack(seq))
    result = [torch.stack(outs)]
    if o.get("returnSequence", False):
        result.append(torch.stack(seqs, dim=1))
    return result


@ref("lstm")
def lstm(x, w, r, steps, hidden, options=None):
    o = options or {}
    batch = x.shape[1]
    hs, cs, seqs = [], [], []
    for d, backward in enumerate(_directions(o)):
        z4, z3 = torch.zeros(4 * hidden), torch.zeros(3 * hidden)
        b = o["bias"][d] if "bias" in o else z4
        rb = o["recurrentBias"][d] if "recurrentBias" in o else z4
        p = o["peepholeWeight"][d] if "peepholeWeight" in o else z3
        h = o["initialHiddenState"][d] if "initialHiddenState" in o else torch.zeros(batch, hidden)
        c = o["initialCellState"][d] if "initialCellState" in o else torch.zeros(batch, hidden)
        seq = [None] * steps
        for t in (reversed(range(steps)) if backward else range(steps)):
            h, c = _lstm_step(x[t], w[d], r[d], h, c, hidden, b, rb, p, o)
            seq[t] = h
        hs.append(h)
        cs.append(c)
        seqs.append(torch.stack(seq))
    result = [torch.stack(hs), torch.stack(cs)]
    if o.get("returnSequence", False):
        result.append(torch.stack(seqs, dim=1))
    return result


# ---------------------------------------------------------------------------
# Graph interpreter and case builder
# ---------------------------------------------------------------------------
def evaluate(operators, env):
    """Runs the operators over env (name -> tensor); returns env."""
    for op in operators:
        args, options = [], {}
        for arg in op["arguments"]:
            (key, value), = arg.items()
            if key == "options":
                options = {k: env[v] if isinstance(v, str) and v in env else v
                           for k, v in value.items()}
            elif isinstance(value, str) and value in env:
                args.append(env[value])
            elif key == "inputs":
                args.append([env[v] for v in value])
            else:
                args.append(value)
        result = REF[op["name"]](*args, options)
        if isinstance(op["outputs"], list):
            assert len(result) == len(op["outputs"]), op["name"]
            env.update(zip(op["outputs"], result))
        else:
            env[op["outputs"]] = result
    return env


TORCH_DTYPE = {"float32": torch.float32, "float16": torch.float16}
INT_DTYPE = {"int32": torch.int32, "uint32": torch.int64, "int64": torch.int64,
             "int8": torch.int8, "uint8": torch.uint8}


def round_to(t, dtype):
    return t.detach().to(TORCH_DTYPE[dtype]).to(torch.float64)


def as_list(t, dtype):
    return round_to(t, dtype).reshape(-1).tolist()


def describe(inputs, operators):
    """'[1,2,5,5] [4,1,3,3] groups=2 bias=[4]' from the first operator's arguments."""
    def shape(name):
        return "[" + ",".join(str(s) for s in inputs[name].shape) + "]"
    parts = []
    op = operators[0]
    for arg in op["arguments"]:
        (key, value), = arg.items()
        if key == "options":
            for k, v in value.items():
                if isinstance(v, str) and v in inputs:
                    parts.append(f"{k}={shape(v)}")
                else:
                    parts.append(f"{k}={json.dumps(v, separators=(',', ':'))}")
        elif isinstance(value, str) and value in inputs:
            parts.append(shape(value))
        elif key == "inputs":
            parts.append(" ".join(shape(v) for v in value))
        else:
            parts.append(f"{key}={json.dumps(value, separators=(',', ':'))}")
    return " ".join(parts)


def make_case(label, inputs, operators, dtype="float32", fwd=None, grad=None,
              scale=1.0, name=None, tag=None, note=None):
    """Builds one test case.

    label: name prefix (the operator); inputs: name -> Data | Ints;
    operators: WebNN operators (JSON form); tag: words added to the generated
    name; scale: multiplies both absolute tolerances (large reductions);
    fwd/grad: (atol, rtol) overrides of the defaults.
    """
    if name is None:
        extra = f" {tag}" if tag else ""
        name = f"{label} {dtype} {describe(inputs, operators)}{extra} (gradient)"
    # Data comes from a generator seeded with the name; when the guard finds
    # it too close to a kink or tie, the next seed is tried.
    for attempt in range(20):
        rng = torch.Generator().manual_seed(zlib.crc32(name.encode()) + attempt)
        env, graph_inputs, float_inputs = {}, {}, []
        for key, spec in inputs.items():
            if isinstance(spec, Ints):
                env[key] = torch.tensor(spec.values, dtype=INT_DTYPE[spec.dtype]).reshape(spec.shape)
                entry = {"data": spec.values, "descriptor": {"shape": spec.shape, "dataType": spec.dtype}}
            else:
                t = round_to(spec.draw(rng), dtype).requires_grad_(True)
                env[key] = t
                float_inputs.append(key)
                entry = {"data": as_list(t, dtype), "descriptor": {"shape": spec.shape, "dataType": dtype}}
            if spec.constant:
                entry["constant"] = True
            graph_inputs[key] = entry
        try:
            evaluate(operators, env)
            break
        except NotDifferentiable:
            if attempt == 19:
                raise

    # Graph outputs: operator outputs that no later operator reads.
    produced, consumed = [], set()
    for operator in operators:
        for arg in operator["arguments"]:
            for v in arg.values():
                for s in (v.values() if isinstance(v, dict) else v if isinstance(v, list) else [v]):
                    if isinstance(s, str):
                        consumed.add(s)
        out = operator["outputs"]
        produced += out if isinstance(out, list) else [out]
    outputs = [o for o in produced if o not in consumed]

    expected, seeds, loss = {}, {}, 0.0
    for o in outputs:
        y = env[o]
        expected[o] = {"data": as_list(y, dtype), "descriptor": {"shape": list(y.shape), "dataType": dtype}}
        seed = round_to(torch.randn(y.shape, generator=rng), dtype)
        seeds[o] = seed.reshape(-1).tolist()
        loss = loss + (y * seed).sum()
    grads = torch.autograd.grad(loss, [env[k] for k in float_inputs], allow_unused=True)
    gradients = {k: as_list(gk if gk is not None else torch.zeros_like(env[k]), dtype)
                 for k, gk in zip(float_inputs, grads)}

    fa, fr = fwd or (F16_TOL if dtype == "float16" else FWD_TOL)
    ga, gr = grad or (F16_TOL if dtype == "float16" else GRAD_TOL)
    case = {"name": name,
            "graph": {"inputs": graph_inputs, "operators": operators, "expectedOutputs": expected},
            "tolerance": {"metric": "ATOL", "value": _num(fa * scale), "rtol": fr},
            "gradients": {"seed": seeds, "expected": gradients,
                          "tolerance": {"metric": "ATOL", "value": _num(ga * scale), "rtol": gr}}}
    if note:
        case["note"] = note
    return case


def _num(v):
    return float(f"{v:.3g}")


def op(name, *args, outputs="output", **options):
    """One operator in JSON form. args: ('input', 'x'), ('axis', 1), ...;
    options are passed as keywords (omitted when none)."""
    arguments = [{k: v} for k, v in args]
    if options:
        arguments.append({"options": options})
    return {"name": name, "arguments": arguments, "outputs": outputs}


def reduced_scale(count):
    """Tolerance factor for a sum over `count` elements: sqrt(count/16), at least 1."""
    return max(1.0, math.sqrt(count / 16.0))


# ---------------------------------------------------------------------------
# Case tables
# ---------------------------------------------------------------------------
def elementwise_cases():
    cases = []

    # Unary operators: (name, [data specs], extra options per case).
    unary = {
        "abs": [A(2, 3), A(24), A(2, 2, 3, 2)],
        "cos": [U(2, 3, lo=-3, hi=3), U(24, lo=-3, hi=3), U(2, 2, 3)],
        "erf": [U(2, 3, lo=-2, hi=2), U(24), U(2, 1, 3, 2)],
        "exp": [U(2, 3), U(24, lo=-2, hi=2), U(1, 2, 3, 2)],
        "gelu": [U(2, 3, lo=-3, hi=3), U(24), U(2, 2, 3)],
        "hardSwish": [A(2, 3, kinks=(-3.0, 3.0), lo=-4, hi=4), A(24, kinks=(-3.0, 3.0), lo=-5, hi=5),
                      A(2, 2, 3, kinks=(-3.0, 3.0), lo=-1, hi=1)],
        "identity": [U(2, 3), U(24), U(2, 1, 3, 2)],
        "log": [P(2, 3, lo=0.1, hi=3), P(24), P(2, 2, 3)],
        "neg": [U(2, 3), U(24), U(2, 1, 3, 2)],
        "reciprocal": [P(2, 3, lo=0.3, hi=3), P(24, lo=0.5), V([2, 2], [-0.5, -1.25, 0.75, 2.0])],
        "relu": [A(2, 3), A(24), A(2, 2, 3, 2)],
        "sigmoid": [U(2, 3, lo=-4, hi=4), U(24), U(2, 2, 3)],
        "sin": [U(2, 3, lo=-3, hi=3), U(24, lo=-3, hi=3), U(2, 2, 3)],
        "softplus": [U(2, 3, lo=-4, hi=4), U(24), U(2, 2, 3)],
        "softsign": [A(2, 3, lo=-3, hi=3), A(24), A(2, 2, 3)],
        "sqrt": [P(2, 3, lo=0.1, hi=4), P(24), P(2, 2, 3)],
        "tan": [U(2, 3, lo=-1.2, hi=1.2), U(24, lo=-1.2, hi=1.2), U(2, 2, 3)],
        "tanh": [U(2, 3, lo=-3, hi=3), U(24), U(2, 2, 3)],
    }
    for name, specs in unary.items():
        for spec in specs:
            cases.append(make_case(name, {"x": spec}, [op(name, ("input", "x"))]))

    # A few float16 cases (simple element-wise operators).
    for name, spec in [("abs", A(2, 3)), ("neg", U(2, 3)), ("relu", A(2, 4)),
                       ("exp", U(2, 3)), ("sigmoid", U(2, 3, lo=-3, hi=3))]:
        cases.append(make_case(name, {"x": spec}, [op(name, ("input", "x"))], dtype="float16"))
    for name in ["add", "mul"]:
        cases.append(make_case(name, {"a": U(2, 3), "b": U(3)},
                               [op(name, ("a", "a"), ("b", "b"))], dtype="float16"))

    # Unary operators with options.
    with_options = [
        ("elu", A(2, 3, lo=-2, hi=2), {}),
        ("elu", A(24, lo=-2, hi=2), {"alpha": 0.5}),
        ("elu", A(2, 2, 3, lo=-3, hi=1), {"alpha": 1.7}),
        ("leakyRelu", A(2, 3), {}),
        ("leakyRelu", A(24), {"alpha": 0.2}),
        ("leakyRelu", A(2, 2, 3), {"alpha": -1.5}),
        ("linear", U(2, 3), {}),
        ("linear", U(24), {"alpha": 2.5}),
        ("linear", U(2, 2, 3), {"alpha": -0.75, "beta": 0.3}),
        ("linear", U(3, 2), {"beta": -1.25}),
        ("hardSigmoid", A(2, 3, kinks=(-2.5, 2.5), lo=-4, hi=4), {}),
        ("hardSigmoid", A(24, kinks=(-0.5 / 0.7, 0.5 / 0.7), lo=-2, hi=2), {"alpha": 0.7}),
        ("hardSigmoid", A(2, 2, 3, kinks=(-1.2, 0.8), lo=-2, hi=2), {"alpha": 0.5, "beta": 0.6}),
        ("hardSigmoid", A(2, 3, kinks=(-1.5, 3.5), lo=-2, hi=2), {"beta": 0.3}),
        ("clamp", A(2, 3, kinks=(-0.5, 0.5)), {"minValue": -0.5, "maxValue": 0.5}),
        ("clamp", A(24, kinks=(0.1,)), {"minValue": 0.1}),
        ("clamp", A(2, 2, 3, kinks=(0.25,)), {"maxValue": 0.25}),
        ("clamp", U(2, 3), {}),
    ]
    for name, spec, options in with_options:
        cases.append(make_case(name, {"x": spec}, [op(name, ("input", "x"), **options)]))

    for shape, axis in [([2, 4], 1), ([3, 5], 0), ([2, 3, 4], 2), ([2, 3, 2, 2], 1), ([4], 0)]:
        cases.append(make_case("softmax", {"x": U(*shape, lo=-2, hi=2)},
                               [op("softmax", ("input", "x"), ("axis", axis))]))

    # Binary operators, broadcasting in both directions.
    shapes = [([2, 3], [2, 3]), ([2, 3], [3]), ([3, 1], [2, 1, 4]), ([1], [2, 2, 3]), ([], [2, 3])]
    for name in ["add", "sub", "mul"]:
        for sa, sb in shapes:
            cases.append(make_case(name, {"a": U(*sa), "b": U(*sb)}, [op(name, ("a", "a"), ("b", "b"))]))
    for sa, sb in shapes:
        cases.append(make_case("div", {"a": U(*sa), "b": P(*sb, lo=0.5, hi=2)},
                               [op("div", ("a", "a"), ("b", "b"))]))
    cases.append(make_case("div", {"a": U(2, 3), "b": V([2, 3], [-0.8, 1.5, -1.2, 0.6, -2.0, 0.9])},
                           [op("div", ("a", "a"), ("b", "b"))], tag="negative divisors"))
    for sa, sb in shapes[:4]:
        cases.append(make_case("pow", {"a": P(*sa, lo=0.3, hi=2), "b": U(*sb, lo=-2, hi=2)},
                               [op("pow", ("a", "a"), ("b", "b"))]))
    # max / min: inputs differ by at least 0.05 everywhere (same shape), or
    # are well separated value ranges when broadcast.
    for name in ["max", "min"]:
        for a, b in [(G(2, 3, lo=-1.2), G(2, 3, lo=-1.2, phase=0.75)),
                     (G(2, 4, lo=-1.6), G(4, lo=-0.8, phase=0.75)),
                     (G(3, 1, lo=-0.4, phase=0.75), G(2, 1, 4, lo=-1.6, step=0.4)),
                     (V([], [0.33]), G(2, 3, lo=-1.2))]:
            cases.append(make_case(name, {"a": a, "b": b}, [op(name, ("a", "a"), ("b", "b"))]))

    # prelu: slope broadcast to the input.
    for sx, ss in [([2, 3], [2, 3]), ([2, 3], [3]), ([2, 3, 2, 2], [3, 1, 1]), ([2, 4], [1]), ([4], [2, 4])]:
        cases.append(make_case("prelu", {"x": A(*sx), "slope": U(*ss, lo=-0.5, hi=0.5)},
                               [op("prelu", ("input", "x"), ("slope", "slope"))]))

    # where: uint8 condition, broadcasting.
    where_cases = [([2, 3], [2, 3], [2, 3]), ([2, 3], [3], [2, 1]), ([3], [2, 3], []), ([2, 1, 3], [2, 1], [1, 3])]
    for k, (sc, st, sf) in enumerate(where_cases):
        n = math.prod(sc)
        cond = [(7 * i + k) % 3 % 2 * (1 + i % 5) for i in range(n)]  # mixed 0 and non-zero
        cases.append(make_case("where", {"c": I(sc, cond, "uint8"), "t": U(*st), "f": U(*sf)},
                               [op("where", ("condition", "c"), ("trueValue", "t"), ("falseValue", "f"))]))

    # dequantizeLinear: gradient only for the scale.
    deq = [
        (I([4], [12, 24, 35, 123], "uint8"), P(4, lo=0.01, hi=0.1), I([4], [128, 128, 100, 0], "uint8")),
        (I([2, 3], [-5, 10, 127, -128, 0, 3], "int8"), P(lo=0.01, hi=0.05), I([], [2], "int8")),
        (I([2, 2, 3], [1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12], "int8"), P(2, 1, 1, lo=0.05, hi=0.2),
         I([2, 1, 1], [1, -1], "int8")),
        (I([6, 4], list(range(0, 240, 10)), "uint8"), P(2, 2, lo=0.01, hi=0.05), I([2, 2], [0, 10, 20, 30], "uint8")),
    ]
    for x, s, z in deq:
        cases.append(make_case("dequantizeLinear", {"x": x, "scale": s, "zeroPoint": z},
                               [op("dequantizeLinear", ("input", "x"), ("scale", "scale"), ("zeroPoint", "zeroPoint"))]))
    return cases


def reduction_cases():
    cases = []
    configs = [  # (shape, options)
        ([2, 3, 4], {}),
        ([2, 3, 4], {"axes": [1]}),
        ([2, 3, 4], {"axes": [0, 2], "keepDimensions": True}),
        ([3, 4], {"axes": [1], "keepDimensions": False}),
        ([2, 3, 2, 2], {"axes": [1, 3]}),
        ([4, 16], {"axes": [1]}),
    ]
    data = {
        "reduceSum": lambda s: U(*s), "reduceMean": lambda s: U(*s),
        "reduceL1": lambda s: A(*s), "reduceL2": lambda s: U(*s),
        "reduceSumSquare": lambda s: U(*s), "reduceLogSum": lambda s: P(*s, lo=0.1, hi=1.0),
        "reduceLogSumExp": lambda s: U(*s, lo=-2, hi=2),
        "reduceMax": lambda s: S(*s), "reduceMin": lambda s: S(*s),
        "reduceProduct": lambda s: A(*s, lo=-1.4, hi=1.4, margin=0.6),
    }
    for name, make in data.items():
        for shape, options in configs:
            if name == "reduceProduct" and shape == [4, 16]:
                shape = [4, 6]
            axes = options.get("axes", range(len(shape)))
            count = math.prod(shape[a] for a in axes)
            cases.append(make_case(name, {"x": make(shape)}, [op(name, ("input", "x"), **options)],
                                   scale=reduced_scale(count)))

    for shape, axis, options in [([2, 5], 1, {}), ([2, 3, 4], 0, {"exclusive": True}),
                                 ([2, 3, 4], 2, {"reversed": True}),
                                 ([3, 4], 1, {"exclusive": True, "reversed": True}), ([8], 0, {})]:
        cases.append(make_case("cumulativeSum", {"x": U(*shape)},
                               [op("cumulativeSum", ("input", "x"), ("axis", axis), **options)]))
    return cases


def matrix_cases():
    cases = []
    gemm_cases = [
        ({"a": U(2, 3), "b": U(3, 4)}, {}),
        ({"a": U(3, 4), "b": U(4, 2), "c": U(2)}, {"c": "c"}),
        ({"a": U(3, 2), "b": U(3, 4), "c": U(2, 4)}, {"c": "c", "aTranspose": True, "alpha": 0.5}),
        ({"a": U(2, 3), "b": U(4, 3), "c": U(2, 1)}, {"c": "c", "bTranspose": True, "beta": 2.0}),
        ({"a": U(4, 3), "b": U(5, 4), "c": U(1)},
         {"c": "c", "aTranspose": True, "bTranspose": True, "alpha": -1.5, "beta": 0.25}),
        ({"a": U(2, 20), "b": U(20, 3), "c": U(2, 3)}, {"c": "c", "beta": 0.0}),
    ]
    for inputs, options in gemm_cases:
        k = inputs["b"].shape[1] if options.get("bTranspose") else inputs["b"].shape[0]
        cases.append(make_case("gemm", inputs, [op("gemm", ("a", "a"), ("b", "b"), **options)],
                               scale=reduced_scale(k)))
    for sa, sb in [([2, 3], [3, 4]), ([2, 3, 4], [2, 4, 2]), ([2, 3, 4], [4, 5]), ([3, 4], [2, 4, 2]),
                   ([2, 1, 2, 3], [3, 3, 2]), ([1, 3], [3, 1]), ([4, 24], [24, 3])]:
        cases.append(make_case("matmul", {"a": U(*sa), "b": U(*sb)}, [op("matmul", ("a", "a"), ("b", "b"))],
                               scale=reduced_scale(sa[-1])))
    return cases


def movement_cases():
    cases = []

    def add(label, inputs, operator):
        cases.append(make_case(label, inputs, [operator]))

    for shapes, axis in [([[2, 3], [2, 2]], 1), ([[1, 3], [2, 3], [1, 3]], 0), ([[2, 1, 2], [2, 3, 2]], 1),
                         ([[4], [2]], 0)]:
        names = [f"x{k}" for k in range(len(shapes))]
        add("concat", {n: U(*s) for n, s in zip(names, shapes)}, op("concat", ("inputs", names), ("axis", axis)))
    for s, new in [([1, 3], [2, 3]), ([3, 1], [2, 3, 4]), ([], [2, 2]), ([2, 1, 3], [2, 4, 3])]:
        add("expand", {"x": U(*s)}, op("expand", ("input", "x"), ("newShape", new)))
    for s, new in [([2, 3], [3, 2]), ([2, 3, 4], [6, 4]), ([24], [2, 3, 2, 2]), ([1, 4], [4])]:
        add("reshape", {"x": U(*s)}, op("reshape", ("input", "x"), ("newShape", new)))
    for s, options in [([2, 3], {}), ([2, 3, 4], {"permutation": [1, 0, 2]}),
                       ([2, 3, 2, 2], {"permutation": [0, 2, 3, 1]}), ([4], {})]:
        add("transpose", {"x": U(*s)}, op("transpose", ("input", "x"), **options))
    for s, options in [([2, 3], {}), ([2, 3, 4], {"axes": [1, 2]}), ([3, 4], {"axes": [0]}), ([2, 3], {"axes": []})]:
        add("reverse", {"x": U(*s)}, op("reverse", ("input", "x"), **options))
    for s, reps in [([2, 3], [2, 1]), ([2, 3], [1, 3]), ([2, 1, 2], [2, 3, 2]), ([3], [4]),
                    ([2, 1, 2, 1, 2], [1, 2, 2, 3, 1])]:
        add("tile", {"x": U(*s)}, op("tile", ("input", "x"), ("repetitions", reps)))
    for s, options in [([3, 4], {}), ([4, 3], {"upper": False}), ([2, 3, 3], {"diagonal": 1}),
                       ([3, 5], {"upper": False, "diagonal": -1}), ([4, 4], {"upper": True, "diagonal": -2})]:
        add("triangular", {"x": U(*s)}, op("triangular", ("input", "x"), **options))
    for s, starts, sizes, options in [([4, 5], [1, 1], [2, 3], {}), ([2, 12], [0, 2], [2, 10], {"strides": [1, 4]}),
                                      ([4, 3, 2], [0, 0, 1], [4, 3, 1], {"strides": [3, 2, 1]}),
                                      ([3, 4, 5], [1, 0, 2], [2, 4, 3], {"strides": [1, 2, 2]})]:
        add("slice", {"x": U(*s)}, op("slice", ("input", "x"), ("starts", starts), ("sizes", sizes), **options))
    for s, splits, options in [([6, 2], 3, {}), ([2, 6], [1, 2, 3], {"axis": 1}), ([2, 4, 3], 2, {"axis": 1}),
                               ([5, 2], [2, 3], {})]:
        n = splits if isinstance(splits, int) else len(splits)
        add("split", {"x": U(*s)}, op("split", ("input", "x"), ("splits", splits),
                                      outputs=[f"output{k}" for k in range(n)], **options))
    for s, begin, end, options in [([2, 3], [1, 2], [2, 1], {}), ([2, 3], [0, 1], [1, 0], {"mode": "constant", "value": 0.5}),
                                   ([1, 3, 3, 1], [0, 2, 2, 0], [0, 2, 2, 0], {"mode": "edge"}),
                                   ([2, 4], [1, 2], [1, 3], {"mode": "reflection"}),
                                   ([3, 4, 2], [0, 1, 1], [2, 1, 0], {"mode": "edge"}),
                                   ([5], [2], [1], {"mode": "reflection"})]:
        add("pad", {"x": U(*s)}, op("pad", ("input", "x"), ("beginningPadding", begin), ("endingPadding", end), **options))

    # Gather family (repeated indices: gradients must be accumulated).
    for s, idx, options in [([5], I([3], [4, 0, 4]), {}), ([4, 3], I([2, 2], [3, 1, 1, 0]), {}),
                            ([2, 4, 3], I([3], [2, 0, 2]), {"axis": 1}), ([2, 3], I([], [2], "uint32"), {"axis": 1})]:
        add("gather", {"x": U(*s), "indices": idx}, op("gather", ("input", "x"), ("indices", "indices"), **options))
    for s, idx, options in [([3, 3], I([3, 2], [0, 2, 1, 1, 2, 0]), {"axis": 1}),
                            ([3, 3], I([2, 3], [2, 0, 1, 2, 2, 0]), {"axis": 0}),
                            ([2, 2, 2], I([1, 2, 2], [1, 0, 0, 1]), {})]:
        add("gatherElements", {"x": U(*s), "indices": idx},
            op("gatherElements", ("input", "x"), ("indices", "indices"), **options))
    for s, idx in [([2, 2, 4], I([3, 2], [1, 0, 0, 1, 1, 0])), ([3, 4], I([2, 2], [2, 3, 0, 1])),
                   ([2, 3, 2], I([2, 1, 1], [1, 1]))]:
        add("gatherND", {"x": U(*s), "indices": idx}, op("gatherND", ("input", "x"), ("indices", "indices")))
    for s, idx, su, options in [([3, 3], I([2, 3], [1, 0, 2, 0, 2, 1]), [2, 3], {"axis": 0}),
                                ([3, 4], I([3, 2], [3, 0, 1, 2, 0, 3]), [3, 2], {"axis": 1}),
                                ([4, 2], I([2, 2], [3, 1, 0, 2]), [2, 2], {})]:
        add("scatterElements", {"x": U(*s), "indices": idx, "updates": U(*su)},
            op("scatterElements", ("input", "x"), ("indices", "indices"), ("updates", "updates"), **options))
    for s, idx, su in [([8], I([4, 1], [4, 3, 1, 7]), [4]), ([4, 3], I([2, 1], [2, 0]), [2, 3]),
                       ([2, 3, 2], I([2, 2], [1, 2, 0, 1]), [2, 2])]:
        add("scatterND", {"x": U(*s), "indices": idx, "updates": U(*su)},
            op("scatterND", ("input", "x"), ("indices", "indices"), ("updates", "updates")))
    return cases


def conv_cases():
    cases = []
    conv = [  # (input, filter, bias, options)
        ([1, 1, 5, 5], [1, 1, 3, 3], None, {}),
        ([1, 2, 5, 5], [3, 2, 3, 3], [3], {"padding": [1, 1, 1, 1]}),
        ([2, 2, 6, 5], [2, 2, 2, 2], None, {"strides": [2, 2], "padding": [0, 1, 1, 0]}),
        ([1, 2, 7, 7], [2, 2, 3, 3], [2], {"dilations": [2, 2]}),
        ([1, 4, 4, 4], [4, 2, 2, 2], None, {"groups": 2}),
        ([1, 3, 5, 5], [3, 1, 3, 3], [3], {"groups": 3, "padding": [1, 1, 1, 1], "strides": [2, 1]}),
        ([1, 4, 4, 2], [3, 2, 2, 2], [3], {"inputLayout": "nhwc"}),
        ([1, 2, 4, 4], [2, 2, 2, 3], None, {"filterLayout": "hwio"}),
        ([1, 5, 5, 2], [3, 3, 3, 2], [3], {"inputLayout": "nhwc", "filterLayout": "ohwi", "padding": [1, 0, 0, 1]}),
        ([1, 5, 5, 4], [2, 3, 3, 4], [4], {"inputLayout": "nhwc", "filterLayout": "ihwo", "groups": 2,
                                            "strides": [2, 2], "padding": [1, 1, 1, 1]}),
        ([1, 4, 6, 6], [6, 2, 3, 3], [6], {"padding": [2, 1, 0, 1], "strides": [2, 2], "dilations": [1, 2], "groups": 2}),
    ]
    for xs, ws, bs, options in conv:
        inputs = {"x": U(*xs), "w": U(*ws, constant=True)}
        if bs:
            inputs["b"] = U(*bs, constant=True)
            options = dict(options, bias="b")
        cases.append(make_case("conv2d", inputs, [op("conv2d", ("input", "x"), ("filter", "w"), **options)]))

    convt = [
        ([1, 1, 3, 3], [1, 1, 3, 3], None, {}),
        ([1, 2, 3, 3], [2, 3, 2, 2], [3], {"strides": [2, 2]}),
        ([1, 2, 3, 2], [2, 2, 3, 3], None, {"strides": [3, 2], "outputPadding": [1, 1]}),
        ([1, 2, 3, 3], [2, 1, 3, 3], [1], {"padding": [1, 1, 1, 1], "strides": [2, 2]}),
        ([1, 1, 3, 3], [1, 2, 2, 2], None, {"dilations": [2, 2], "padding": [0, 1, 1, 0]}),
        ([1, 4, 2, 2], [4, 1, 3, 3], [2], {"groups": 2, "strides": [2, 2]}),
        ([1, 2, 3, 2], [2, 1, 3, 3], None, {"strides": [3, 2], "outputSizes": [10, 6]}),
        ([1, 3, 3, 2], [3, 2, 2, 2], [3], {"inputLayout": "nhwc", "filterLayout": "ohwi", "strides": [2, 2],
                                            "padding": [0, 1, 0, 1], "outputSizes": [6, 6]}),
        ([1, 2, 2, 3], [3, 3, 2, 2], None, {"filterLayout": "hwoi", "padding": [1, 0, 0, 1]}),
        ([1, 2, 2, 2], [2, 2, 2, 2], [2], {"inputLayout": "nhwc", "filterLayout": "iohw"}),
    ]
    for xs, ws, bs, options in convt:
        inputs = {"x": U(*xs), "w": U(*ws, constant=True)}
        if bs:
            inputs["b"] = U(*bs, constant=True)
            options = dict(options, bias="b")
        cases.append(make_case("convTranspose2d", inputs,
                               [op("convTranspose2d", ("input", "x"), ("filter", "w"), **options)]))
    return cases


def pooling_cases():
    cases = []
    pools = [  # (input shape, options)
        ([1, 2, 3, 3], {}),
        ([1, 1, 4, 4], {"windowDimensions": [2, 2], "strides": [2, 2]}),
        # Windows tiling the top-left corner: the last row and columns are
        # in no window (5 -> 2, 7 -> 3), or only the rows (7 -> 2, 8 -> 4).
        ([2, 2, 5, 7], {"windowDimensions": [2, 2], "strides": [2, 2]}),
        ([1, 1, 7, 8], {"windowDimensions": [3, 2], "strides": [3, 2]}),
        ([2, 2, 5, 5], {"windowDimensions": [3, 3], "padding": [1, 1, 1, 1]}),
        ([1, 1, 5, 5], {"windowDimensions": [2, 2], "dilations": [2, 2]}),
        ([1, 2, 6, 6], {"windowDimensions": [3, 3], "strides": [2, 2], "roundingType": "ceil"}),
        ([1, 1, 7, 5], {"windowDimensions": [3, 2], "padding": [1, 0, 0, 1], "strides": [2, 2],
                        "roundingType": "floor"}),
        ([1, 4, 4, 2], {"windowDimensions": [2, 2], "layout": "nhwc"}),
        ([1, 5, 5, 2], {"windowDimensions": [3, 3], "padding": [1, 0, 0, 1], "strides": [2, 2],
                        "layout": "nhwc", "outputSizes": [3, 3]}),
        ([1, 1, 6, 6], {"windowDimensions": [3, 3], "strides": [2, 2], "outputSizes": [2, 2]}),
    ]
    for name in ["averagePool2d", "l2Pool2d", "maxPool2d"]:
        for shape, options in pools:
            spec = S(*shape) if name == "maxPool2d" else U(*shape)
            cases.append(make_case(name, {"x": spec}, [op(name, ("input", "x"), **options)]))

    resample = [
        ([1, 1, 2, 3], {}),
        ([1, 1, 2, 3], {"scales": [2, 2]}),
        ([1, 2, 2, 2], {"sizes": [4, 6]}),
        ([1, 2, 3, 1], {"sizes": [6, 3], "axes": [1, 2]}),
        ([1, 1, 2, 3], {"mode": "linear", "scales": [2, 2]}),
        ([1, 2, 3, 3], {"mode": "linear", "sizes": [5, 4]}),
        ([2, 3, 2, 1], {"mode": "linear", "sizes": [3, 5], "axes": [1, 2]}),
        ([1, 1, 4, 6], {"mode": "linear", "scales": [0.5, 0.5]}),
        ([1, 1, 3, 4], {"mode": "linear", "sizes": [2, 6]}),
    ]
    for shape, options in resample:
        cases.append(make_case("resample2d", {"x": U(*shape)}, [op("resample2d", ("input", "x"), **options)]))
    return cases


def normalization_cases():
    cases = []
    bn = [  # (input shape, channel axis, with scale, with bias, epsilon)
        ([2, 3, 2, 2], None, False, False, None),
        ([2, 3, 2, 2], None, True, True, None),
        ([2, 2, 2, 3], 3, True, False, 1e-3),
        ([3, 4], 1, False, True, None),
        ([4, 2, 3], 0, True, True, 0.1),
    ]
    for shape, axis, scale, bias, eps in bn:
        c = shape[1 if axis is None else axis]
        inputs = {"x": U(*shape), "mean": U(c, lo=-0.3, hi=0.3, constant=True),
                  "variance": P(c, lo=0.2, hi=1.5, constant=True)}
        options = {}
        if scale:
            inputs["scale"] = U(c, lo=0.5, hi=1.5, constant=True)
            options["scale"] = "scale"
        if bias:
            inputs["bias"] = U(c, constant=True)
            options["bias"] = "bias"
        if axis is not None:
            options["axis"] = axis
        if eps is not None:
            options["epsilon"] = eps
        cases.append(make_case("batchNormalization", inputs,
                               [op("batchNormalization", ("input", "x"), ("mean", "mean"), ("variance", "variance"),
                                   **options)]))

    inorm = [
        ([2, 3, 2, 2], {}),
        ([1, 2, 3, 3], {"scale": True, "bias": True}),
        ([2, 2, 2, 3], {"layout": "nhwc", "scale": True}),
        ([1, 3, 4, 2], {"layout": "nchw", "bias": True, "epsilon": 1e-3}),
        ([2, 3, 3, 2], {"layout": "nhwc", "scale": True, "bias": True, "epsilon": 1e-4}),
    ]
    for shape, spec in inorm:
        c = shape[3] if spec.get("layout") == "nhwc" else shape[1]
        inputs, options = {"x": U(*shape)}, {}
        for key in ("scale", "bias"):
            if spec.get(key):
                inputs[key] = U(c, lo=0.5, hi=1.5, constant=True) if key == "scale" else U(c, constant=True)
                options[key] = key
        options.update({k: v for k, v in spec.items() if k in ("layout", "epsilon")})
        cases.append(make_case("instanceNormalization", inputs,
                               [op("instanceNormalization", ("input", "x"), **options)]))

    lnorm = [
        ([2, 5], None, False, False, {}),
        ([2, 3, 4], None, True, True, {}),
        ([2, 3, 4], [2], True, False, {}),
        ([2, 1, 4, 3], [0, 2], True, True, {"epsilon": 1e-3}),
        ([2, 1, 4, 3], [3, 1, 2], False, True, {}),
        ([3, 2, 4], [2, 0], True, True, {"epsilon": 1e-4}),
    ]
    for shape, axes, scale, bias, extra in lnorm:
        ax = axes if axes is not None else list(range(1, len(shape)))
        ps = [shape[a] for a in ax]
        inputs, options = {"x": U(*shape)}, {}
        if scale:
            inputs["scale"] = U(*ps, lo=0.5, hi=1.5, constant=True)
            options["scale"] = "scale"
        if bias:
            inputs["bias"] = U(*ps, constant=True)
            options["bias"] = "bias"
        if axes is not None:
            options["axes"] = axes
        options.update(extra)
        cases.append(make_case("layerNormalization", inputs, [op("layerNormalization", ("input", "x"), **options)]))
    return cases


def recurrent_cases():
    cases = []
    W = 0.6  # weight range

    gru_cell = [  # (batch, input, hidden, options)
        (2, 3, 4, {}),
        (1, 2, 3, {"bias": True, "recurrentBias": True}),
        (2, 3, 2, {"bias": True, "resetAfter": False}),
        (2, 2, 3, {"recurrentBias": True, "layout": "rzn"}),
        (1, 3, 4, {"bias": True, "recurrentBias": True, "resetAfter": False, "layout": "rzn",
                   "activations": ["sigmoid", "tanh"]}),
    ]
    for batch, size, hidden, spec in gru_cell:
        inputs = {"x": U(batch, size), "w": U(3 * hidden, size, lo=-W, hi=W, constant=True),
                  "r": U(3 * hidden, hidden, lo=-W, hi=W, constant=True), "h": U(batch, hidden)}
        options = {}
        for key in ("bias", "recurrentBias"):
            if spec.get(key):
                inputs[key] = U(3 * hidden, lo=-0.3, hi=0.3, constant=True)
                options[key] = key
        options.update({k: v for k, v in spec.items() if k not in ("bias", "recurrentBias")})
        cases.append(make_case("gruCell", inputs, [op("gruCell", ("input", "x"), ("weight", "w"),
                                                      ("recurrentWeight", "r"), ("hiddenState", "h"),
                                                      ("hiddenSize", hidden), **options)]))

    gru = [  # (steps, batch, input, hidden, options)
        (2, 2, 3, 4, {}),
        (3, 1, 2, 3, {"bias": True, "recurrentBias": True, "returnSequence": True}),
        (2, 2, 2, 3, {"bias": True, "initialHiddenState": True, "direction": "backward", "returnSequence": True}),
        (3, 2, 2, 2, {"bias": True, "recurrentBias": True, "direction": "both", "returnSequence": True,
                      "resetAfter": False}),
        (2, 1, 3, 2, {"initialHiddenState": True, "direction": "both", "layout": "rzn"}),
        (2, 2, 2, 2, {"bias": True, "recurrentBias": True, "initialHiddenState": True, "resetAfter": False,
                      "layout": "rzn", "direction": "forward", "returnSequence": False,
                      "activations": ["sigmoid", "tanh"]}),
    ]
    for steps, batch, size, hidden, spec in gru:
        nd = 2 if spec.get("direction") == "both" else 1
        inputs = {"x": U(steps, batch, size), "w": U(nd, 3 * hidden, size, lo=-W, hi=W, constant=True),
                  "r": U(nd, 3 * hidden, hidden, lo=-W, hi=W, constant=True)}
        options = {}
        for key in ("bias", "recurrentBias"):
            if spec.get(key):
                inputs[key] = U(nd, 3 * hidden, lo=-0.3, hi=0.3, constant=True)
                options[key] = key
        if spec.get("initialHiddenState"):
            inputs["h0"] = U(nd, batch, hidden)
            options["initialHiddenState"] = "h0"
        options.update({k: v for k, v in spec.items() if k not in ("bias", "recurrentBias", "initialHiddenState")})
        outs = ["output", "sequence"] if spec.get("returnSequence") else ["output"]
        cases.append(make_case("gru", inputs, [op("gru", ("input", "x"), ("weight", "w"), ("recurrentWeight", "r"),
                                                  ("steps", steps), ("hiddenSize", hidden), outputs=outs, **options)]))

    lstm_cell = [  # (batch, input, hidden, options)
        (2, 3, 2, {}),
        (1, 2, 3, {"bias": True, "recurrentBias": True}),
        (2, 2, 2, {"bias": True, "peepholeWeight": True}),
        (2, 3, 2, {"recurrentBias": True, "layout": "ifgo"}),
        (1, 2, 2, {"bias": True, "recurrentBias": True, "peepholeWeight": True, "layout": "iofg",
                   "activations": ["sigmoid", "tanh", "tanh"]}),
    ]
    for batch, size, hidden, spec in lstm_cell:
        inputs = {"x": U(batch, size), "w": U(4 * hidden, size, lo=-W, hi=W, constant=True),
                  "r": U(4 * hidden, hidden, lo=-W, hi=W, constant=True), "h": U(batch, hidden), "c": U(batch, hidden)}
        options = {}
        for key in ("bias", "recurrentBias"):
            if spec.get(key):
                inputs[key] = U(4 * hidden, lo=-0.3, hi=0.3, constant=True)
                options[key] = key
        if spec.get("peepholeWeight"):
            inputs["peephole"] = U(3 * hidden, lo=-0.5, hi=0.5, constant=True)
            options["peepholeWeight"] = "peephole"
        options.update({k: v for k, v in spec.items() if k not in ("bias", "recurrentBias", "peepholeWeight")})
        cases.append(make_case("lstmCell", inputs, [op("lstmCell", ("input", "x"), ("weight", "w"),
                                                       ("recurrentWeight", "r"), ("hiddenState", "h"),
                                                       ("cellState", "c"), ("hiddenSize", hidden),
                                                       outputs=["output", "cell"], **options)]))

    lstm = [  # (steps, batch, input, hidden, options)
        (2, 2, 3, 2, {}),
        (3, 1, 2, 3, {"bias": True, "recurrentBias": True, "returnSequence": True}),
        (2, 2, 2, 2, {"bias": True, "peepholeWeight": True, "initialHiddenState": True, "initialCellState": True,
                      "direction": "backward", "returnSequence": True}),
        (3, 2, 2, 2, {"bias": True, "recurrentBias": True, "direction": "both", "returnSequence": True}),
        (2, 1, 3, 2, {"initialCellState": True, "direction": "both", "layout": "ifgo"}),
        (2, 2, 2, 3, {"bias": True, "recurrentBias": True, "peepholeWeight": True, "initialHiddenState": True,
                      "direction": "forward", "layout": "iofg", "returnSequence": False,
                      "activations": ["sigmoid", "tanh", "tanh"]}),
    ]
    for steps, batch, size, hidden, spec in lstm:
        nd = 2 if spec.get("direction") == "both" else 1
        inputs = {"x": U(steps, batch, size), "w": U(nd, 4 * hidden, size, lo=-W, hi=W, constant=True),
                  "r": U(nd, 4 * hidden, hidden, lo=-W, hi=W, constant=True)}
        options = {}
        for key in ("bias", "recurrentBias"):
            if spec.get(key):
                inputs[key] = U(nd, 4 * hidden, lo=-0.3, hi=0.3, constant=True)
                options[key] = key
        if spec.get("peepholeWeight"):
            inputs["peephole"] = U(nd, 3 * hidden, lo=-0.5, hi=0.5, constant=True)
            options["peepholeWeight"] = "peephole"
        for key, name in (("initialHiddenState", "h0"), ("initialCellState", "c0")):
            if spec.get(key):
                inputs[name] = U(nd, batch, hidden)
                options[key] = name
        options.update({k: v for k, v in spec.items()
                        if k not in ("bias", "recurrentBias", "peepholeWeight", "initialHiddenState",
                                     "initialCellState")})
        outs = ["output", "cell"] + (["sequence"] if spec.get("returnSequence") else [])
        cases.append(make_case("lstm", inputs, [op("lstm", ("input", "x"), ("weight", "w"), ("recurrentWeight", "r"),
                                                   ("steps", steps), ("hiddenSize", hidden), outputs=outs,
                                                   **options)]))
    return cases


def graph_cases():
    cases = []
    cases.append(make_case(
        "subgraph", {"x": U(2, 3), "w": U(3, 4, constant=True), "b": U(4, constant=True)},
        [op("matmul", ("a", "x"), ("b", "w"), outputs="mm"),
         op("add", ("a", "mm"), ("b", "b"), outputs="sum"),
         op("relu", ("input", "sum"), outputs="act"),
         op("softmax", ("input", "act"), ("axis", 1), outputs="output")],
        name="subgraph float32 matmul [2,3]x[3,4] -> add [4] -> relu -> softmax axis=1 (gradient)"))
    cases.append(make_case(
        "subgraph", {"x": U(1, 2, 6, 6), "w": U(3, 2, 3, 3, lo=-0.4, hi=0.4, constant=True),
                     "b": U(3, lo=0.3, hi=0.6, constant=True)},
        [op("conv2d", ("input", "x"), ("filter", "w"), outputs="conv", padding=[1, 1, 1, 1], bias="b"),
         op("relu", ("input", "conv"), outputs="act"),
         op("maxPool2d", ("input", "act"), outputs="output", windowDimensions=[2, 2], strides=[2, 2])],
        name="subgraph float32 conv2d [1,2,6,6] [3,2,3,3] padding=1 bias -> relu -> maxPool2d 2x2 (gradient)"))
    cases.append(make_case(
        "subgraph", {"x": U(2, 3)},
        [op("mul", ("a", "x"), ("b", "x"), outputs="output")],
        name="subgraph float32 mul(x, x) [2,3] (gradient)"))
    cases.append(make_case(
        "subgraph", {"x": A(2, 4)},
        [op("relu", ("input", "x"), outputs="act"),
         op("add", ("a", "act"), ("b", "x"), outputs="sum"),
         op("reduceSum", ("input", "sum"), outputs="output", axes=[1])],
        name="subgraph float32 add(relu(x), x) [2,4] -> reduceSum axes=[1] (gradient)"))
    cases.append(make_case(
        "subgraph", {"x": U(2, 3, 4), "scale": U(4, lo=0.5, hi=1.5, constant=True), "bias": U(4, constant=True),
                     "w": U(4, 2, constant=True)},
        [op("layerNormalization", ("input", "x"), outputs="norm", axes=[2], scale="scale", bias="bias"),
         op("matmul", ("a", "norm"), ("b", "w"), outputs="proj"),
         op("tanh", ("input", "proj"), outputs="output")],
        name="subgraph float32 layerNormalization [2,3,4] axes=[2] -> matmul [4,2] -> tanh (gradient)"))
    return cases


FILES = [
    ("elementwise.json", "Gradient vectors: element-wise unary and binary operators, activations, softmax, "
                         "where, dequantizeLinear.", elementwise_cases),
    ("reduction.json", "Gradient vectors: reductions and cumulativeSum.", reduction_cases),
    ("matrix.json", "Gradient vectors: gemm and matmul.", matrix_cases),
    ("movement.json", "Gradient vectors: data-movement operators (concat, expand, gather*, pad, reshape, reverse, "
                      "scatter*, slice, split, tile, transpose, triangular).", movement_cases),
    ("conv.json", "Gradient vectors: conv2d and convTranspose2d.", conv_cases),
    ("pooling.json", "Gradient vectors: averagePool2d, l2Pool2d, maxPool2d and resample2d.", pooling_cases),
    ("normalization.json", "Gradient vectors: batchNormalization, instanceNormalization, layerNormalization.",
     normalization_cases),
    ("recurrent.json", "Gradient vectors: gruCell, gru, lstmCell, lstm.", recurrent_cases),
    ("graph.json", "Gradient vectors: small multi-operator graphs (gradients summed over uses).", graph_cases),
]


def write(filename, description, cases):
    names = [c["name"] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, f"duplicate case names: {sorted(dup)}"
    lines = [json.dumps(c, separators=(",", ":"), allow_nan=False) for c in cases]
    source = {"generator": GENERATOR, "torch": torch.__version__}
    with open(os.path.join(OUT_DIR, filename), "w") as f:
        f.write("{\n" + f'"description": {json.dumps(description)},\n' + f'"source": {json.dumps(source)},\n'
                + '"tests": [\n' + ",\n".join(lines) + "\n]\n}\n")
    return len(cases)


def main():
    total = 0
    for filename, description, build in FILES:
        n = write(filename, description, build())
        print(f"{filename}: {n} cases")
        total += n
    print(f"total: {total} cases")


if __name__ == "__main__":
    main()
