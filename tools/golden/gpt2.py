"""Golden values for models/gpt2_test.cc: Hugging Face's GPT-2, rewritten in
plain PyTorch (the `transformers` package is not installed here). The classes
below follow transformers' modeling_gpt2.py (GPT2LMHeadModel with the eager
attention path, "gelu_new", Conv1D's [in, out] weights) line for line, so
their state_dict is a Hugging Face GPT-2's.

A tiny config with random weights (HF's init, initializer_range raised to
0.25 so that attention and logits are far from uniform) is written as
  models/testdata/gpt2_tiny.safetensors       what save_pretrained writes
      (transformer.* names, the tied lm_head.weight left out)
  models/testdata/gpt2_tiny_base.safetensors  a GPT2Model's file, as the
      hub's "gpt2" checkpoint is laid out (no "transformer." prefix, the
      old persistent h.N.attn.bias / attn.masked_bias buffers)
and models/testdata/gpt2_{golden,errors_golden,strings_golden}.inc hold its
logits, one training step's loss and gradient summaries, greedy generation
past the context length, the state_dict's names, and HF's errors.

Run with /usr/bin/python3 (Debian's torch 1.13).
"""

import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from golden_util import ErrorWriter, GoldenWriter, ROOT, StringWriter  # noqa: E402
from safetensors_interop import write as write_safetensors  # noqa: E402

torch.set_num_threads(1)


class GPT2Config:
    def __init__(self, vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12,
                 n_inner=None, resid_pdrop=0.1, embd_pdrop=0.1, attn_pdrop=0.1,
                 layer_norm_epsilon=1e-5, initializer_range=0.02):
        self.vocab_size = vocab_size
        self.n_positions = n_positions
        self.n_embd = n_embd
        self.n_layer = n_layer
        self.n_head = n_head
        self.n_inner = n_inner
        self.resid_pdrop = resid_pdrop
        self.embd_pdrop = embd_pdrop
        self.attn_pdrop = attn_pdrop
        self.layer_norm_epsilon = layer_norm_epsilon
        self.initializer_range = initializer_range


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Conv1D(nn.Module):
    """transformers.pytorch_utils.Conv1D: a linear layer with its weight
    stored [in, out]."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        w = torch.empty(nx, nf)
        nn.init.normal_(w, std=0.02)
        self.weight = nn.Parameter(w)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class GPT2Attention(nn.Module):
    def __init__(self, config):
        super().__init__()
        max_positions = config.n_positions
        self.register_buffer(
            "bias",
            torch.tril(torch.ones((max_positions, max_positions), dtype=torch.bool)).view(
                1, 1, max_positions, max_positions),
            persistent=False)
        self.register_buffer("masked_bias", torch.tensor(-1e4), persistent=False)
        self.embed_dim = config.n_embd
        self.num_heads = config.n_head
        self.head_dim = self.embed_dim // self.num_heads
        self.split_size = self.embed_dim
        if self.head_dim * self.num_heads != self.embed_dim:
            raise ValueError(
                f"`embed_dim` must be divisible by num_heads (got `embed_dim`: {self.embed_dim} and"
                f" `num_heads`: {self.num_heads}).")
        self.c_attn = Conv1D(3 * self.embed_dim, self.embed_dim)
        self.c_proj = Conv1D(self.embed_dim, self.embed_dim)
        self.attn_dropout = nn.Dropout(config.attn_pdrop)
        self.resid_dropout = nn.Dropout(config.resid_pdrop)

    def _attn(self, query, key, value):
        attn_weights = torch.matmul(query, key.transpose(-1, -2))
        attn_weights = attn_weights / torch.full([], value.size(-1) ** 0.5,
                                                 dtype=attn_weights.dtype)
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = self.bias[:, :, key_length - query_length: key_length, :key_length]
        mask_value = torch.full([], torch.finfo(attn_weights.dtype).min, dtype=attn_weights.dtype)
        attn_weights = torch.where(causal_mask, attn_weights.to(attn_weights.dtype), mask_value)
        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        attn_weights = attn_weights.type(value.dtype)
        attn_weights = self.attn_dropout(attn_weights)
        return torch.matmul(attn_weights, value)

    def _split_heads(self, tensor):
        new_shape = tensor.size()[:-1] + (self.num_heads, self.head_dim)
        return tensor.view(new_shape).permute(0, 2, 1, 3)

    def _merge_heads(self, tensor):
        tensor = tensor.permute(0, 2, 1, 3).contiguous()
        return tensor.view(tensor.size()[:-2] + (self.num_heads * self.head_dim,))

    def forward(self, hidden_states):
        query, key, value = self.c_attn(hidden_states).split(self.split_size, dim=2)
        query, key, value = (self._split_heads(t) for t in (query, key, value))
        attn_output = self._merge_heads(self._attn(query, key, value))
        return self.resid_dropout(self.c_proj(attn_output))


class GPT2MLP(nn.Module):
    def __init__(self, intermediate_size, config):
        super().__init__()
        embed_dim = config.n_embd
        self.c_fc = Conv1D(intermediate_size, embed_dim)
        self.c_proj = Conv1D(embed_dim, intermediate_size)
        self.dropout = nn.Dropout(config.resid_pdrop)

    def forward(self, hidden_states):
        return self.dropout(self.c_proj(gelu_new(self.c_fc(hidden_states))))


class GPT2Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        hidden_size = config.n_embd
        inner_dim = config.n_inner if config.n_inner is not None else 4 * hidden_size
        self.ln_1 = nn.LayerNorm(hidden_size, eps=config.layer_norm_epsilon)
        self.attn = GPT2Attention(config)
        self.ln_2 = nn.LayerNorm(hidden_size, eps=config.layer_norm_epsilon)
        self.mlp = GPT2MLP(inner_dim, config)

    def forward(self, hidden_states):
        hidden_states = self.attn(self.ln_1(hidden_states)) + hidden_states
        return hidden_states + self.mlp(self.ln_2(hidden_states))


class GPT2PreTrainedModel(nn.Module):
    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, Conv1D)):
            module.weight.data.normal_(mean=0.0, std=self.config.initializer_range)
            if module.bias is not None:
                module.bias.data.zero_()
        elif isinstance(module, nn.Embedding):
            module.weight.data.normal_(mean=0.0, std=self.config.initializer_range)
        elif isinstance(module, nn.LayerNorm):
            module.bias.data.zero_()
            module.weight.data.fill_(1.0)
        for name, p in module.named_parameters():
            if name == "c_proj.weight":
                p.data.normal_(mean=0.0, std=(self.config.initializer_range /
                                              math.sqrt(2 * self.config.n_layer)))


class GPT2Model(GPT2PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.n_positions, config.n_embd)
        self.drop = nn.Dropout(config.embd_pdrop)
        self.h = nn.ModuleList([GPT2Block(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)

    def forward(self, input_ids):
        position_ids = torch.arange(0, input_ids.size(-1), dtype=torch.long).unsqueeze(0)
        hidden_states = self.drop(self.wte(input_ids) + self.wpe(position_ids))
        for block in self.h:
            hidden_states = block(hidden_states)
        return self.ln_f(hidden_states)


class GPT2LMHeadModel(GPT2PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = GPT2Model(config)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.apply(self._init_weights)  # post_init(): init_weights, then tie_weights
        self.lm_head.weight = self.transformer.wte.weight

    def forward(self, input_ids, labels=None):
        lm_logits = self.lm_head(self.transformer(input_ids))
        if labels is None:
            return lm_logits
        shift_logits = lm_logits[..., :-1, :].contiguous()
        shift_labels = labels[..., 1:].contiguous()
        loss = F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))
        return lm_logits, loss


@torch.no_grad()
def generate_greedy(model, idx, max_new_tokens):
    """nanoGPT's loop: the context cropped to the last n_positions tokens."""
    for _ in range(max_new_tokens):
        logits = model(idx[:, -model.config.n_positions:])
        idx = torch.cat([idx, logits[:, -1, :].argmax(-1, keepdim=True)], dim=1)
    return idx


TINY = dict(vocab_size=64, n_positions=16, n_embd=32, n_layer=2, n_head=4, resid_pdrop=0.0,
            embd_pdrop=0.0, attn_pdrop=0.0, initializer_range=0.25)


def main():
    g = GoldenWriter("gpt2", package="models")
    errors = ErrorWriter("gpt2", package="models")
    strings = StringWriter("gpt2", package="models")

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(**TINY))
    sd = model.state_dict()
    strings.add("names.tiny", "\n".join("%s %s" % (k, list(v.shape)) for k, v in sd.items()))

    # save_pretrained(safe_serialization=True): the tied alias is dropped.
    testdata = os.path.join(ROOT, "models", "testdata")
    write_safetensors(os.path.join(testdata, "gpt2_tiny.safetensors"),
                      {k: v for k, v in sd.items() if k != "lm_head.weight"}, {"format": "pt"})
    base = {k[len("transformer."):]: v for k, v in sd.items() if k.startswith("transformer.")}
    for i in range(TINY["n_layer"]):
        base["h.%d.attn.bias" % i] = model.transformer.h[i].attn.bias.to(torch.float32)
        base["h.%d.attn.masked_bias" % i] = torch.tensor(-1e4)
    write_safetensors(os.path.join(testdata, "gpt2_tiny_base.safetensors"), base,
                      {"format": "pt"})

    ids = (torch.arange(24) * 7 + 3).remainder(64).view(2, 12)
    g.add("input_ids", ids)
    model.eval()
    with torch.no_grad():
        g.add("logits", model(ids))
    # Greedy decoding from 4 tokens to 20, past n_positions = 16.
    g.add("greedy", generate_greedy(model, ids[:1, :4], 16))

    # One training step (dropout 0): loss and each parameter's gradient,
    # wte's holding the embedding's and the tied lm_head's parts.
    model.train()
    _, loss = model(ids, labels=ids)
    loss.backward()
    g.add("train_loss", loss)
    g.add("wte.grad_head", model.transformer.wte.weight.grad[:8])
    for name, p in model.named_parameters():
        gd = p.grad.to(torch.float64)
        g.add("grad_norm." + name, gd.norm())
        g.add("grad_dot." + name, (gd * p.detach().to(torch.float64)).sum())

    errors.err("heads_divide", lambda: GPT2LMHeadModel(GPT2Config(n_embd=30, n_head=4,
                                                                  n_layer=1, vocab_size=8)))

    g.write()
    errors.write()
    strings.write()


if __name__ == "__main__":
    main()
