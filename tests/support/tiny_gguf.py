"""A tiny llama model in GGUF, for serving with llama-cpp-python's server.

Two layers of width 32 and a SentencePiece-style vocabulary (the three special tokens, the 256
byte tokens and the printable ASCII characters, so any text tokenises by bytes or characters),
written with the ``gguf`` package that llama.cpp's converters use. Its attention and
feed-forward weights are random but their outputs are zeroed, so the next token depends on the
current one alone: the embeddings and the output matrix are set so that, greedily, the token
after a newline (the end of the chat template) starts :data:`ANSWER`, each of its characters
leads to the next, and the last one to the end of the answer. So the model answers ``ANSWER``
to every prompt in a few tokens, as a small model that keeps its answers short; what the tests
look at is how the server streams and interrupts it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

WIDTH = 32
LAYERS = 2
HEADS = 4
FEED_FORWARD = 64
CONTEXT = 2048
ANSWER = "<svg/>"
"""What the model answers (distinct characters: each leads to the next)."""
EOS = 2
CHAT_TEMPLATE = (
    "{% for message in messages %}<s>{{ message['role'] }}\n{{ message['content'] }}</s>\n"
    "{% endfor %}{% if add_generation_prompt %}<s>assistant\n{% endif %}"
)


def write_tiny_llama(path: Path, seed: int = 0) -> Path:
    """Write the model to ``path`` and return it."""
    import gguf

    rng = np.random.default_rng(seed)
    tokens = ["<unk>", "<s>", "</s>", *(f"<0x{byte:02X}>" for byte in range(256)),
              "\u2581", *(chr(code) for code in range(33, 127))]
    types = ([gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
             + [gguf.TokenType.BYTE] * 256 + [gguf.TokenType.NORMAL] * (len(tokens) - 259))
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("svgeval tiny llama")
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(WIDTH)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(FEED_FORWARD)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(HEADS)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(WIDTH // HEADS)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0] * len(tokens))
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_chat_template(CHAT_TEMPLATE)

    def weights(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    embeddings, output = _answer_chain(tokens)
    writer.add_tensor("token_embd.weight", embeddings)
    writer.add_tensor("output_norm.weight", np.ones(WIDTH, np.float32))
    writer.add_tensor("output.weight", output)
    zero = np.zeros((WIDTH, WIDTH), np.float32)
    for layer in range(LAYERS):
        block = f"blk.{layer}"
        writer.add_tensor(f"{block}.attn_norm.weight", np.ones(WIDTH, np.float32))
        for name in ("attn_q", "attn_k", "attn_v"):
            writer.add_tensor(f"{block}.{name}.weight", weights(WIDTH, WIDTH))
        writer.add_tensor(f"{block}.attn_output.weight", zero)
        writer.add_tensor(f"{block}.ffn_norm.weight", np.ones(WIDTH, np.float32))
        writer.add_tensor(f"{block}.ffn_gate.weight", weights(FEED_FORWARD, WIDTH))
        writer.add_tensor(f"{block}.ffn_up.weight", weights(FEED_FORWARD, WIDTH))
        writer.add_tensor(f"{block}.ffn_down.weight", np.zeros((WIDTH, FEED_FORWARD), np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def _answer_chain(tokens: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Embeddings and output rows for a greedy chain: newline -> ANSWER's characters -> end.

    Every token has 1 in dimension 0; a token of the chain also has 10 in a dimension of its
    own, whose output weight points at its successor (10 x its normalised value, far above
    what dimension 0 gives the end token). Any other token leads to the end.
    """
    ids = {token: index for index, token in enumerate(tokens)}
    chain = [ids["<0x0A>"], *(ids[char] for char in ANSWER)]
    embeddings = np.zeros((len(tokens), WIDTH), np.float32)
    embeddings[:, 0] = 1.0
    output = np.zeros((len(tokens), WIDTH), np.float32)
    output[EOS, 0] = 10.0
    for dimension, (token, successor) in enumerate(zip(chain, [*chain[1:], EOS]), start=1):
        embeddings[token, dimension] = 10.0
        output[successor, dimension] = 10.0
    return embeddings, output
