"""Builders for tools/zoo.py whose architectures come from PyPI packages,
built from their configs with seeded random weights (nothing is downloaded):
Hugging Face transformers, wrapped so that the export sees positional
tensors in and the last hidden state out, and Ultralytics' YOLOv8s from its
yaml, exported by torch.onnx.export with the detection head in its export
form (boxes and class scores decoded, [1, 84, 8400]).

`scripts/install-deps.sh zoo` installs them, pinned to versions that run on
Debian's torch 1.13 (transformers 4.40.2, ultralytics 8.0.200, numpy below
2). Without them these rows say "export failed: No module named ...".
"""

import numpy as np
import torch

SEED = 0
SEQUENCE = 128


class LastHiddenState(torch.nn.Module):
    """Calls `model` with the export's positional inputs as keywords (the
    models' own positional order puts past_key_values or head masks before
    the attention mask) and returns the first output tensor."""

    def __init__(self, model, names):
        super().__init__()
        self.model = model
        self.names = names

    def forward(self, *inputs):
        return self.model(**dict(zip(self.names, inputs)), return_dict=False)[0]


def token_inputs(vocab, sequence=SEQUENCE, padded=16):
    """Seeded token ids and an attention mask whose last `padded` positions
    are padding, so the masking path is exercised."""
    rng = np.random.default_rng(SEED)
    ids = rng.integers(3, vocab, size=(1, sequence), dtype=np.int64)
    mask = np.ones((1, sequence), dtype=np.int64)
    mask[:, sequence - padded:] = 0
    return {"input_ids": torch.from_numpy(ids), "attention_mask": torch.from_numpy(mask)}


def text_model(model_class, config_class, **config):
    """An encoder or decoder stack taking input_ids and attention_mask."""
    def build():
        import transformers
        torch.manual_seed(SEED)
        cfg = getattr(transformers, config_class)(**config)
        model = getattr(transformers, model_class)(cfg).eval()
        inputs = token_inputs(cfg.vocab_size)
        return LastHiddenState(model, list(inputs)), inputs
    return build


def vit():
    import transformers
    torch.manual_seed(SEED)
    model = transformers.ViTModel(transformers.ViTConfig(), add_pooling_layer=False).eval()
    rng = np.random.default_rng(SEED)
    pixels = torch.from_numpy(rng.standard_normal((1, 3, 224, 224), dtype=np.float32))
    return LastHiddenState(model, ["pixel_values"]), {"pixel_values": pixels}


def whisper_encoder():
    """Whisper-base's encoder (two 1-D convolutions over 30 s of log-mel
    frames, then 6 layers)."""
    import transformers
    from transformers.models.whisper.modeling_whisper import WhisperEncoder
    torch.manual_seed(SEED)
    cfg = transformers.WhisperConfig(d_model=512, encoder_layers=6, encoder_attention_heads=8,
                                     encoder_ffn_dim=2048, num_mel_bins=80)
    model = WhisperEncoder(cfg).eval()
    rng = np.random.default_rng(SEED)
    features = torch.from_numpy(rng.standard_normal((1, 80, 3000), dtype=np.float32))
    return LastHiddenState(model, ["input_features"]), {"input_features": features}


def yolov8s(calibrate_batchnorm):
    from ultralytics.nn.modules import Detect
    from ultralytics.nn.tasks import DetectionModel
    torch.manual_seed(SEED)
    model = DetectionModel("yolov8s.yaml", verbose=False)
    for module in model.modules():
        if isinstance(module, Detect):  # decoded boxes and scores, one tensor
            module.export, module.format = True, "onnx"
    calibrate_batchnorm(model)
    rng = np.random.default_rng(SEED)
    image = torch.from_numpy(rng.random((1, 3, 640, 640), dtype=np.float32))
    return model.eval(), {"images": image}


BUILDERS = {
    "hf_bert": text_model("BertModel", "BertConfig"),
    "hf_distilbert": text_model("DistilBertModel", "DistilBertConfig"),
    "hf_roberta": text_model("RobertaModel", "RobertaConfig"),
    "hf_gpt2": text_model("GPT2Model", "GPT2Config", use_cache=False),
    "hf_t5_encoder": text_model("T5EncoderModel", "T5Config"),
    "hf_vit": vit,
    "hf_whisper_encoder": whisper_encoder,
    # A small Llama: 4 layers of 512 with grouped-query attention (8 heads
    # sharing 4 key/value heads), RMSNorm, rotary positions and SwiGLU.
    "hf_llama_small": text_model("LlamaModel", "LlamaConfig", hidden_size=512,
                                 intermediate_size=1376, num_hidden_layers=4,
                                 num_attention_heads=8, num_key_value_heads=4,
                                 vocab_size=32000, use_cache=False),
}
