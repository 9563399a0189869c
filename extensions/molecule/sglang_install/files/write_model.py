# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write a tiny but well-formed model directory: a Qwen3-style config.json and one safetensors file.

The safetensors bytes follow the format's definition (8-byte little-endian header length, JSON header
with dtype/shape/data_offsets, then the data buffer); nothing from the code under test is used.
"""

import json
import os
import struct
import sys

root = sys.argv[1]
config = {
    "architectures": ["Qwen3ForCausalLM"],
    "model_type": "qwen3",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "vocab_size": 256,
    "max_position_embeddings": 4096,
    "torch_dtype": "bfloat16",
    "tie_word_embeddings": True,
}
tensors = {"model.embed_tokens.weight": ("BF16", [256, 64], 2), "model.norm.weight": ("BF16", [64], 2)}
for layer in range(2):
    tensors["model.layers.%d.mlp.down_proj.weight" % layer] = ("BF16", [64, 128], 2)
header, offset, chunks = {"__metadata__": {"format": "pt"}}, 0, []
for name in sorted(tensors):
    dtype, shape, width = tensors[name]
    count = 1
    for dim in shape:
        count *= dim
    header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + count * width]}
    chunks.append(os.urandom(count * width))
    offset += count * width
raw = json.dumps(header).encode()
raw += b" " * (-len(raw) % 8)
with open(os.path.join(root, "model.safetensors"), "wb") as handle:
    handle.write(struct.pack("<Q", len(raw)) + raw + b"".join(chunks))
with open(os.path.join(root, "config.json"), "w") as handle:
    json.dump(config, handle, indent=2)
