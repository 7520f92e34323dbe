#!/usr/bin/env python3
"""Export the benchmark / end-to-end models to ONNX with deterministic inputs.

Usage:
    python models/export_models.py --out DIR [--models resnet50,bert_2layer,...]

For every model this writes DIR/<model>.onnx and DIR/<model>.inputs/<name>.npy
(one file per graph input). Weights are seeded random (no downloads): the CNNs
get calibrated BatchNorm statistics so that activations stay O(1), and the
BatchNormalization nodes are kept in the graph so that the compiler's own
BN-folding pass gets exercised. Everything is deterministic for a given
torch / numpy version.
"""

import argparse
import collections
import math
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torchvision

OPSET = 17
SEED = 0
IMAGE_SHAPE = (1, 3, 224, 224)
BERT_SEQ = 128
BERT_VOCAB = 30522
BERT_PADDING = 28  # last positions masked out in attention_mask

CNN_MODELS = ("resnet50", "mobilenet_v2", "squeezenet1_1")
BERT_MODELS = {"bert_base": 12, "bert_2layer": 2}
ALL_MODELS = CNN_MODELS + tuple(BERT_MODELS)


# --------------------------------------------------------------------------
# CNNs (torchvision, random weights)
# --------------------------------------------------------------------------

def _calibrate_batchnorm(model, generator, batches=4, batch_size=4):
    """Give BN layers seeded affine params and data-derived running stats.

    The running statistics are the exact cumulative averages (momentum=None)
    over a few seeded standard-normal batches run in train mode, so that in
    eval mode every BN output is roughly normalised.
    """
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    with torch.no_grad():
        for bn in bns:
            bn.weight.copy_(torch.rand(bn.num_features, generator=generator) * 0.5 + 0.75)
            bn.bias.copy_(torch.randn(bn.num_features, generator=generator) * 0.1)
            bn.reset_running_stats()
            bn.momentum = None
        model.train()
        for _ in range(batches):
            model(torch.randn((batch_size,) + IMAGE_SHAPE[1:], generator=generator))
    for bn in bns:
        bn.momentum = 0.1
    model.eval()


def build_cnn(name):
    """Return a seeded, BN-calibrated torchvision model in eval mode.

    Conv/Linear biases (zero-initialised by torchvision) get small seeded
    values: equal-valued initializers would otherwise be deduplicated by the
    exporter into Identity nodes.
    """
    torch.manual_seed(SEED)
    model = getattr(torchvision.models, name)(weights=None)
    generator = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)) and m.bias is not None:
                m.bias.copy_(torch.randn(m.bias.shape, generator=generator) * 0.01)
    _calibrate_batchnorm(model, generator)
    return model


def cnn_inputs():
    """Deterministic image input: seeded standard normal float32."""
    rng = np.random.default_rng(SEED)
    return {"input": rng.standard_normal(IMAGE_SHAPE, dtype=np.float32)}


# --------------------------------------------------------------------------
# BERT-base shaped encoder
# --------------------------------------------------------------------------

class BertLayer(torch.nn.Module):
    """One post-LN transformer encoder layer with explicit attention."""

    def __init__(self, hidden, heads, ffn, eps):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.query = torch.nn.Linear(hidden, hidden)
        self.key = torch.nn.Linear(hidden, hidden)
        self.value = torch.nn.Linear(hidden, hidden)
        self.attn_out = torch.nn.Linear(hidden, hidden)
        self.attn_norm = torch.nn.LayerNorm(hidden, eps=eps)
        self.ffn_in = torch.nn.Linear(hidden, ffn)
        self.ffn_out = torch.nn.Linear(ffn, hidden)
        self.ffn_norm = torch.nn.LayerNorm(hidden, eps=eps)

    def _split_heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, h, ext_mask):
        q = self._split_heads(self.query(h))
        k = self._split_heads(self.key(h))
        v = self._split_heads(self.value(h))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores + ext_mask, dim=-1)
        ctx = torch.matmul(probs, v).transpose(1, 2).contiguous()
        ctx = ctx.view(h.shape[0], h.shape[1], -1)
        h = self.attn_norm(h + self.attn_out(ctx))
        f = self.ffn_out(torch.nn.functional.gelu(self.ffn_in(h)))  # exact erf GELU
        return self.ffn_norm(h + f)


class BertEncoder(torch.nn.Module):
    """BERT-base shaped encoder + pooler (inputs: input_ids, attention_mask)."""

    def __init__(self, layers=12, vocab=BERT_VOCAB, hidden=768, heads=12, ffn=3072,
                 max_pos=512, type_vocab=2, eps=1e-12):
        super().__init__()
        self.word_emb = torch.nn.Embedding(vocab, hidden)
        self.pos_emb = torch.nn.Embedding(max_pos, hidden)
        self.type_emb = torch.nn.Embedding(type_vocab, hidden)
        self.emb_norm = torch.nn.LayerNorm(hidden, eps=eps)
        self.layers = torch.nn.ModuleList(BertLayer(hidden, heads, ffn, eps) for _ in range(layers))
        self.pooler = torch.nn.Linear(hidden, hidden)
        self.register_buffer("position_ids", torch.arange(max_pos).unsqueeze(0), persistent=False)

    def forward(self, input_ids, attention_mask):
        seq = input_ids.shape[1]
        token_type_ids = torch.zeros_like(input_ids)
        h = (self.word_emb(input_ids) + self.pos_emb(self.position_ids[:, :seq])
             + self.type_emb(token_type_ids))
        h = self.emb_norm(h)
        ext_mask = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            h = layer(h, ext_mask)
        pooled = torch.tanh(self.pooler(h[:, 0]))
        return h, pooled


def build_bert(layers):
    """Return a seeded BertEncoder in eval mode.

    Linear/Embedding weights and biases are N(0, 0.02) and LayerNorm gamma/beta
    are 1 + N(0, 0.02) / N(0, 0.02): BERT-like magnitudes, but with no
    all-zero or all-one parameter that could hide a bias or affine bug.
    """
    torch.manual_seed(SEED)
    model = BertEncoder(layers=layers)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Linear, torch.nn.Embedding)):
                m.weight.normal_(0.0, 0.02)
            if isinstance(m, torch.nn.Linear):
                m.bias.normal_(0.0, 0.02)
            if isinstance(m, torch.nn.LayerNorm):
                m.weight.normal_(1.0, 0.02)
                m.bias.normal_(0.0, 0.02)
    return model.eval()


def bert_inputs():
    """Deterministic BERT inputs: random token ids, mask with padded tail."""
    rng = np.random.default_rng(SEED)
    input_ids = rng.integers(0, BERT_VOCAB, size=(1, BERT_SEQ), dtype=np.int64)
    attention_mask = np.ones((1, BERT_SEQ), dtype=np.int64)
    attention_mask[:, BERT_SEQ - BERT_PADDING:] = 0
    return {"input_ids": input_ids, "attention_mask": attention_mask}


# --------------------------------------------------------------------------
# Export driver
# --------------------------------------------------------------------------

def model_inputs(name):
    """Deterministic inputs (name -> ndarray) for model `name`."""
    return cnn_inputs() if name in CNN_MODELS else bert_inputs()


def op_counts(model_path):
    """Return a Counter of op types in the (main graph of the) ONNX file."""
    model = onnx.load(model_path, load_external_data=False)
    return collections.Counter(n.op_type for n in model.graph.node)


# The dims a dynamic export leaves open, per input and output of each kind.
DYNAMIC_AXES = {
    "cnn": {"input": {0: "batch"}, "output": {0: "batch"}},
    "bert": {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
             "last_hidden_state": {0: "batch", 1: "sequence"}, "pooler_output": {0: "batch"}},
}


def export_model(name, out_dir):
    """Export model `name` to out_dir/<name>.onnx with its inputs; return the path.

    `<model>_dynamic` is the model exported with symbolic batch (and, for
    BERT, sequence) dims, as users export for serving: the shapes then flow
    through Shape/Gather/Concat/Reshape subgraphs.
    """
    base, dynamic = (name[:-len("_dynamic")], True) if name.endswith("_dynamic") else (name, False)
    if base not in ALL_MODELS:
        raise ValueError(f"unknown model {name!r}; known: {', '.join(ALL_MODELS)} "
                         "(each also as <model>_dynamic)")
    name = base
    os.makedirs(out_dir, exist_ok=True)
    inputs = model_inputs(name)
    if name in CNN_MODELS:
        module, output_names = build_cnn(name), ["output"]
        # PRESERVE on an eval-mode module keeps BatchNormalization (inference
        # form, one output) instead of folding it into the preceding Conv.
        training = torch.onnx.TrainingMode.PRESERVE
    else:
        module, output_names = build_bert(BERT_MODELS[name]), ["last_hidden_state", "pooler_output"]
        training = torch.onnx.TrainingMode.EVAL
    stem = f"{name}_dynamic" if dynamic else name
    path = os.path.join(out_dir, f"{stem}.onnx")
    args = tuple(torch.from_numpy(v) for v in inputs.values())
    axes = DYNAMIC_AXES["cnn" if name in CNN_MODELS else "bert"] if dynamic else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, path, opset_version=OPSET, training=training,
                          input_names=list(inputs), output_names=output_names,
                          do_constant_folding=True, dynamic_axes=axes)
    onnx.checker.check_model(path)
    in_dir = os.path.join(out_dir, f"{stem}.inputs")
    os.makedirs(in_dir, exist_ok=True)
    for input_name, value in inputs.items():
        np.save(os.path.join(in_dir, f"{input_name}.npy"), value)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--models", default=",".join(ALL_MODELS),
                        help="comma-separated subset of: " + ",".join(ALL_MODELS))
    args = parser.parse_args(argv)
    for name in filter(None, args.models.split(",")):
        path = export_model(name, args.out)
        counts = op_counts(path)
        print(f"{name}: {path} ({os.path.getsize(path) / 2**20:.1f} MiB, "
              f"{sum(counts.values())} nodes)")
        for op, n in sorted(counts.items()):
            print(f"  {op:24s} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
