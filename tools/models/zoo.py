#!/usr/bin/python3
"""The model zoo: ONNX models with random weights (fixed seeds), written the way exporters
write them, built on demand (not committed).

    /usr/bin/python3 tools/models/zoo.py NAME -o OUT.onnx [--small]
    /usr/bin/python3 tools/models/zoo.py --list

NAME: resnet50, mobilenetv2, bert-base, yolo, unet, vit-b16. --small keeps every layer type and the
exporter artefacts but shrinks widths, depths and input sizes (for tests on the reference
evaluator).
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from builder import Graph  # noqa: E402


def flatten_dynamic(g, x):
    """The exporter's flatten: Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1]))."""
    return g.reshape_dynamic(x, [0, [-1]])


def resnet50(small):
    g = Graph(50)
    size, div, classes = (32, 8, 10) if small else (224, 1, 1000)
    x = g.input("image", TensorProto.FLOAT, [1, 3, size, size])
    w0 = 64 // div
    x = g.op("Relu", [g.bn(g.conv(x, 3, w0, 7, 2, 3), w0)])
    x = g.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = w0
    for stage, blocks in enumerate([3, 4, 6, 3]):
        width = (64 << stage) // div
        for b in range(blocks):
            stride = 2 if b == 0 and stage > 0 else 1
            y = g.op("Relu", [g.bn(g.conv(x, cin, width, 1), width)])
            y = g.op("Relu", [g.bn(g.conv(y, width, width, 3, stride), width)])
            y = g.bn(g.conv(y, width, width * 4, 1), width * 4)
            short = g.bn(g.conv(x, cin, width * 4, 1, stride, 0), width * 4) if b == 0 else x
            x = g.op("Relu", [g.op("Add", [y, short])])
            cin = width * 4
    x = g.op("GlobalAveragePool", [x])
    x = g.dropout(flatten_dynamic(g, g.noop_cast(x)))
    fw = g.weight("fc.w", (classes, cin), cin, 1.0)
    x = g.op("Gemm", [x, fw, g.small("fc.b", (classes,))], "logits", transB=1)
    g.nodes[-1].output[0] = "logits"
    g.output("logits", [1, classes])
    return g.model("resnet50")


def mobilenetv2(small):
    g = Graph(2)
    size, classes = (32, 10) if small else (224, 1000)
    mult = 0.25 if small else 1.0
    ch = lambda c: max(8, int(c * mult + 4) // 8 * 8)  # noqa: E731
    x = g.input("image", TensorProto.FLOAT, [1, 3, size, size])

    def relu6(v):
        return g.op("Clip", [v, g.constant(0.0), g.constant(6.0)])

    cin = ch(32)
    x = relu6(g.bn(g.conv(x, 3, cin, 3, 2), cin))
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                (6, 320, 1, 1)]
    for t, c, n, s in settings:
        cout = ch(c)
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            y = x
            if t != 1:
                y = relu6(g.bn(g.conv(y, cin, hidden, 1), hidden))
            y = relu6(g.bn(g.conv(y, hidden, hidden, 3, stride, group=hidden), hidden))
            y = g.bn(g.conv(y, hidden, cout, 1), cout)
            x = g.op("Add", [x, y]) if stride == 1 and cin == cout else y
            cin = cout
    last = ch(1280)
    x = relu6(g.bn(g.conv(x, cin, last, 1), last))
    x = g.op("GlobalAveragePool", [x])
    x = g.dropout(flatten_dynamic(g, g.noop_cast(x)))
    fw = g.weight("fc.w", (classes, last), last, 1.0)
    g.op("Gemm", [x, fw, g.small("fc.b", (classes,))], "logits", transB=1)
    g.nodes[-1].output[0] = "logits"
    g.output("logits", [1, classes])
    return g.model("mobilenetv2")


def bert(small):
    g = Graph(768)
    layers, hidden, heads, seq, vocab = (2, 64, 4, 16, 100) if small else (12, 768, 12, 128, 30522)
    head = hidden // heads
    ids = g.input("input_ids", TensorProto.INT64, [1, seq])
    mask = g.input("attention_mask", TensorProto.INT64, [1, seq])
    # Embeddings: word + position + token type, then LayerNorm.
    word = g.op("Gather", [g.small("word_embeddings", (vocab, hidden)), ids], axis=0)
    pos_ids = g.init("position_ids", np.arange(seq, dtype=np.int64)[None, :])
    pos = g.op("Gather", [g.small("position_embeddings", (512, hidden)), pos_ids], axis=0)
    tt_ids = g.init("token_type_ids", np.zeros((1, seq), dtype=np.int64))
    tt = g.op("Gather", [g.small("token_type_embeddings", (2, hidden)), tt_ids], axis=0)
    x = g.dropout(g.layer_norm(g.op("Add", [g.op("Add", [word, pos]), tt]), hidden))
    x = g.identity(g.noop_cast(x))
    # The extended attention mask: (1 - mask[:, None, None, :]) * -10000.
    m = g.op("Unsqueeze", [g.op("Unsqueeze", [mask, g.constant([1], np.int64)]), g.constant([2], np.int64)])
    m = g.op("Cast", [m], to=TensorProto.FLOAT)
    m = g.op("Mul", [g.op("Sub", [g.constant(1.0), m]), g.constant(-10000.0)])

    def split_heads(v):
        v = g.reshape_dynamic(v, [0, 1, [heads, head]])
        return g.op("Transpose", [v], perm=[0, 2, 1, 3])

    for _ in range(layers):
        q = split_heads(g.linear(x, hidden, hidden))
        k = split_heads(g.linear(x, hidden, hidden))
        v = split_heads(g.linear(x, hidden, hidden))
        s = g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])])
        s = g.op("Add", [g.op("Div", [s, g.constant(float(np.sqrt(head)))]), m])
        p = g.dropout(g.op("Softmax", [s], axis=-1))
        c = g.op("Transpose", [g.op("MatMul", [p, v])], perm=[0, 2, 1, 3])
        c = g.reshape_dynamic(c, [0, 1, [hidden]])
        a = g.dropout(g.linear(c, hidden, hidden))
        x = g.layer_norm(g.op("Add", [a, x]), hidden)
        f = g.linear(g.gelu(g.linear(x, hidden, 4 * hidden)), 4 * hidden, hidden)
        x = g.layer_norm(g.op("Add", [g.dropout(f), x]), hidden)
    g.nodes.append(onnx.helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    g.output("last_hidden_state", [1, seq, hidden])
    return g.model("bert-base")


def yolo(small):
    g = Graph(5)
    size, div, classes = (64, 8, 4) if small else (320, 1, 80)
    x = g.input("image", TensorProto.FLOAT, [1, 3, size, size])

    def cbs(v, cin, cout, k=3, s=1):
        """Conv + BN + SiLU (x * sigmoid(x))."""
        v = g.bn(g.conv(v, cin, cout, k, s), cout)
        return g.op("Mul", [v, g.op("Sigmoid", [v])])

    c = [16 // div * 2 if small else 32, 64 // div, 128 // div, 256 // div, 512 // div]
    x = cbs(x, 3, c[0], 3, 2)                    # /2
    x = cbs(x, c[0], c[1], 3, 2)                 # /4
    x = cbs(x, c[1], c[1])
    p3 = cbs(x, c[1], c[2], 3, 2)                # /8
    p4 = cbs(p3, c[2], c[3], 3, 2)               # /16
    p5 = cbs(p4, c[3], c[4], 3, 2)               # /32
    p5 = cbs(p5, c[4], c[3], 1)
    up = g.op("Resize", [p5, "", g.constant([1.0, 1.0, 2.0, 2.0])], mode="nearest")
    p4 = cbs(g.op("Concat", [up, p4], axis=1), 2 * c[3], c[2], 1)
    up = g.op("Resize", [p4, "", g.constant([1.0, 1.0, 2.0, 2.0])], mode="nearest")
    p3 = cbs(g.op("Concat", [up, p3], axis=1), 2 * c[2], c[2], 1)
    outs = []
    per = 5 + classes
    for i, (feat, ch) in enumerate([(p3, c[2]), (p4, c[2]), (p5, c[3])]):
        h = g.conv(feat, ch, 3 * per, 1, bias=True)
        # [N, 3*per, H, W] -> [N, 3, per, H*W] -> [N, 3, H*W, per], sigmoid
        h = g.reshape_dynamic(h, [0, [3, per, -1]])
        h = g.op("Sigmoid", [g.op("Transpose", [h], perm=[0, 1, 3, 2])])
        outs.append(g.reshape_dynamic(h, [0, [-1, per]]))
    g.op("Concat", outs, axis=1)
    g.nodes[-1].output[0] = "detections"
    g.output("detections", [1, 3 * sum((size // s) ** 2 for s in (8, 16, 32)), per])
    return g.model("yolo")


def unet(small):
    g = Graph(3)
    size, base, classes = (32, 8, 3) if small else (128, 32, 3)
    x = g.input("image", TensorProto.FLOAT, [1, 3, size, size])

    def double_conv(v, cin, cout):
        v = g.op("Relu", [g.bn(g.conv(v, cin, cout, 3), cout)])
        return g.op("Relu", [g.bn(g.conv(v, cout, cout, 3), cout)])

    skips, cin = [], 3
    for i in range(4):
        x = double_conv(x, cin, base << i)
        skips.append(x)
        x = g.op("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
        cin = base << i
    x = double_conv(x, cin, base << 4)
    cin = base << 4
    for i in reversed(range(4)):
        cout = base << i
        w = g.weight("up.w", (cin, cout, 2, 2), cin * 4)
        x = g.op("ConvTranspose", [x, w, g.small("up.b", (cout,), 0.01)], kernel_shape=[2, 2], strides=[2, 2])
        x = double_conv(g.op("Concat", [skips[i], x], axis=1), 2 * cout, cout)
        cin = cout
    x = g.identity(g.conv(x, cin, classes, 1, bias=True))
    g.nodes[-1].output[0] = "mask"
    g.output("mask", [1, classes, size, size])
    return g.model("unet")




def vit(small):
    """torchvision's vit_b_16 as torch.onnx.export (TorchScript, opset 17) writes it: the patch
    Conv, Reshape and Transpose, the class token Expand and Concat, and per encoder block
    LayerNormalization, nn.MultiheadAttention's slow path (batch_first: the [1, T, E] input
    transposed to [T, 1, E]; the packed in-projection MatMul + Add, unflattened to [3, E],
    Unsqueeze, Transpose, Squeeze and Gather for q, k, v; the heads split by Reshape and
    Transpose; scaled_dot_product_attention as its opset-14 symbolic writes it, the square root
    of the scale multiplied into q and k^T; the heads merged and the 2-D out-projection a Gemm,
    transposed back), the residual Add, LayerNormalization, the MLP (MatMul + Add, GELU as Erf,
    MatMul + Add) and its residual Add; then the last LayerNormalization, the class token's
    Gather and the head's Gemm. Shapes the model reads at run time go through Shape chains."""
    g = Graph(16, opset=17)
    layers, hidden, heads, mlp, size, patch, classes = (2, 64, 4, 128, 32, 8, 10) if small else \
        (12, 768, 12, 3072, 224, 16, 1000)
    head, grid = hidden // heads, size // patch
    tokens = grid * grid + 1

    def shape_of(*parts):
        """A Concat of 1-element int64 pieces: (tensor, axis) pairs read with Shape, or ints."""
        pieces = [g.dim(p[0], p[1]) if isinstance(p, tuple) else g.constant([p], np.int64) for p in parts]
        return g.op("Concat", pieces, axis=0)

    def layer_norm(v):
        gamma = g.init("ln.gamma", g.rng.uniform(0.8, 1.2, hidden).astype(np.float32))
        return g.op("LayerNormalization", [v, gamma, g.small("ln.beta", (hidden,))], axis=-1, epsilon=1e-6)

    x = g.input("image", TensorProto.FLOAT, [1, 3, size, size])
    w = g.weight("conv_proj.w", (hidden, 3, patch, patch), 3 * patch * patch, 1.0)
    x = g.op("Conv", [x, w, g.small("conv_proj.b", (hidden,))], kernel_shape=[patch, patch], strides=[patch, patch])
    x = g.op("Reshape", [x, shape_of((x, 0), hidden, grid * grid)])
    x = g.op("Transpose", [x], perm=[0, 2, 1])
    # expand(n, -1, -1): the exporter turns the -1s into 1s (Expand broadcasts both ways)
    size = shape_of((x, 0), -1, -1)
    size = g.op("Where", [g.op("Equal", [size, g.constant(-1, np.int64)]), g.constant([1, 1, 1], np.int64), size])
    cls = g.op("Expand", [g.small("class_token", (1, 1, hidden)), size])
    x = g.op("Concat", [cls, x], axis=1)
    x = g.op("Add", [x, g.small("pos_embedding", (1, tokens, hidden))])
    for _ in range(layers):
        y = g.op("Transpose", [layer_norm(x)], perm=[1, 0, 2])  # [T, 1, E]
        proj = g.linear(y, hidden, 3 * hidden)  # nn.Linear on 3-D: MatMul + Add
        proj = g.op("Reshape", [proj, shape_of((proj, 0), (proj, 1), 3, hidden)])  # unflatten(-1, (3, E))
        proj = g.op("Unsqueeze", [proj, g.constant([0], np.int64)])
        proj = g.op("Transpose", [proj], perm=[3, 1, 2, 0, 4])
        proj = g.op("Squeeze", [proj, g.constant([3], np.int64)])  # [3, T, 1, E]
        qkv = []
        for i in range(3):
            v = g.op("Gather", [proj, g.constant(i, np.int64)], axis=0)  # [T, 1, E]
            bh = g.op("Mul", [g.dim(y, 1), g.constant([heads], np.int64)])
            v = g.op("Reshape", [v, g.op("Concat", [g.dim(y, 0), bh, g.constant([head], np.int64)], axis=0)])
            v = g.op("Transpose", [v], perm=[1, 0, 2])  # [heads, T, head]
            v = g.op("Reshape", [v, shape_of((y, 1), heads, (y, 0), head)])  # [1, heads, T, head]
            qkv.append(v)
        q, k, v = qkv
        # scaled_dot_product_attention: scale = 1 / sqrt(head) from q's shape; sqrt(scale) on q and k^T
        d = g.op("Cast", [g.op("Slice", [g.op("Shape", [q]), g.constant([-1], np.int64),
                                         g.constant([np.iinfo(np.int64).max], np.int64)])], to=TensorProto.FLOAT)
        scale = g.op("Cast", [g.op("Div", [g.constant(1.0), g.op("Sqrt", [d])])], to=TensorProto.FLOAT)
        s = g.op("Sqrt", [scale])
        kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
        p = g.op("Softmax", [g.op("MatMul", [g.op("Mul", [q, s]), g.op("Mul", [kt, s])])], axis=-1)
        o = g.op("Transpose", [g.op("MatMul", [p, v])], perm=[2, 0, 1, 3])  # [T, 1, heads, head]
        rows = g.op("Mul", [g.dim(y, 1), g.dim(y, 0)])
        o = g.op("Reshape", [o, g.op("Concat", [rows, g.constant([hidden], np.int64)], axis=0)])
        wo = g.weight("out_proj.w", (hidden, hidden), hidden, 1.0)
        o = g.op("Gemm", [o, wo, g.small("out_proj.b", (hidden,))], transB=1)
        o = g.op("Reshape", [o, shape_of((y, 0), (y, 1), (o, 1))])
        x = g.op("Add", [g.op("Transpose", [o], perm=[1, 0, 2]), x])
        f = g.linear(g.gelu(g.linear(layer_norm(x), hidden, mlp)), mlp, hidden)
        x = g.op("Add", [x, f])
    x = g.op("Gather", [layer_norm(x), g.constant(0, np.int64)], axis=1)
    wh = g.weight("heads.w", (classes, hidden), hidden, 1.0)
    g.op("Gemm", [x, wh, g.small("heads.b", (classes,))], "logits", transB=1)
    g.nodes[-1].output[0] = "logits"
    g.output("logits", [1, classes])
    return g.model("vit-b16")


MODELS = {"resnet50": resnet50, "mobilenetv2": mobilenetv2, "bert-base": bert, "yolo": yolo, "unet": unet, "vit-b16": vit}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name", nargs="?", choices=sorted(MODELS))
    ap.add_argument("-o", "--output")
    ap.add_argument("--small", action="store_true", help="reduced widths/depths/sizes (for tests)")
    ap.add_argument("--list", action="store_true", help="print the model names")
    a = ap.parse_args()
    if a.list:
        print("\n".join(MODELS))
        return 0
    if not a.name or not a.output:
        ap.error("NAME and -o OUT.onnx are required (or --list)")
    model = MODELS[a.name](a.small)
    onnx.checker.check_model(model)
    tmp = a.output + ".tmp"
    onnx.save(model, tmp)
    os.replace(tmp, a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
