"""PCA whitening of image embeddings, fitted on a distribution of SVG renders (SVGauge Sec. 3).

Given embeddings ``X`` (N x D) of renders, :func:`fit_projection` keeps

* ``mu``, the mean embedding,
* ``P`` (k x D), the eigenvectors of the covariance ``cov(X)`` (``ddof=1``) with the ``k``
  largest eigenvalues ``lambda_1 >= ... >= lambda_k`` (SVGauge keeps k = 128),

and :meth:`Projection.apply` maps an embedding ``x`` to
``diag(lambda^-1/2) P (x - mu)``: decorrelated components of unit variance, so that the
covariance of the projected fit data is the identity (Jegou & Chum, ECCV 2012; SVGauge,
Zini et al. 2025, Sec. 3, "PCA" and "whitening" equations).

A projection is saved as ``.npz`` together with what it was fitted with: the encoder id, a probe
embedding that fingerprints the encoder's weights, the render size and background, and the
number of renders; the metric refuses a projection fitted with another encoder or render size.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
PROBE_MIN_COSINE = 0.999
"""How close the encoder's probe embedding must be to the one stored at fit time (same
weights give 1 up to device arithmetic)."""


@dataclass(frozen=True)
class Projection:
    """A fitted PCA whitening and the settings it was fitted with."""

    mean: Array
    """``mu`` (D,): the mean embedding of the fit renders."""
    components: Array
    """``P`` (k, D): principal directions, one per row, by decreasing eigenvalue."""
    eigenvalues: Array
    """``lambda`` (k,): variance of the fit data along each row of ``components``."""
    encoder: str
    """The image encoder's id (hub id or path) at fit time."""
    probe: Array
    """The encoder's pooled embedding (D,) of :func:`probe_image`: its fingerprint."""
    render_size: int
    """Square render size in pixels (the encoder's input size)."""
    background: str
    """Background the renders were composited on."""
    n_fit: int
    """Number of renders the projection was fitted on."""

    def apply(self, features: NDArray[np.generic]) -> Array:
        """``diag(lambda^-1/2) P (x - mu)`` for each row ``x`` of ``features`` (N, D)."""
        centred = np.asarray(features, dtype=np.float64) - self.mean
        projected: Array = (centred @ self.components.T) / np.sqrt(self.eigenvalues)
        return projected

    def save(self, path: str | Path) -> None:
        """Write the projection and its fit settings to ``path`` (``.npz``)."""
        with open(path, "wb") as handle:  # np.savez would append .npz to another suffix
            np.savez(
                handle, mean=self.mean, components=self.components, eigenvalues=self.eigenvalues,
                encoder=np.array(self.encoder), probe=self.probe,
                render_size=np.array(self.render_size), background=np.array(self.background),
                n_fit=np.array(self.n_fit),
            )

    @classmethod
    def load(cls, path: str | Path) -> Projection:
        """Read a projection written by :meth:`save`; ValueError when a field is missing."""
        with np.load(Path(path), allow_pickle=False) as data:
            missing = {"mean", "components", "eigenvalues", "encoder", "probe", "render_size",
                       "background", "n_fit"} - set(data.files)
            if missing:
                raise ValueError(f"{path} is not an SVGauge projection (lacks {sorted(missing)})")
            return cls(
                mean=data["mean"].astype(np.float64),
                components=data["components"].astype(np.float64),
                eigenvalues=data["eigenvalues"].astype(np.float64),
                encoder=str(data["encoder"]), probe=data["probe"].astype(np.float64),
                render_size=int(data["render_size"]), background=str(data["background"]),
                n_fit=int(data["n_fit"]),
            )

    def check_encoder(self, probe: NDArray[np.generic], render_size: int, encoder: str) -> None:
        """Raise ValueError unless ``probe`` (the current encoder's embedding of
        :func:`probe_image`) and ``render_size`` match those of the fit."""
        current = np.asarray(probe, dtype=np.float64)
        if current.shape != self.probe.shape:
            raise ValueError(
                f"the projection was fitted on {self.probe.shape[0]}-d features of {self.encoder}; "
                f"{encoder} gives {current.shape[0]}-d features: fit one for it "
                "(svgeval svgauge fit)")
        cosine = float(current @ self.probe / (np.linalg.norm(current) * np.linalg.norm(self.probe)))
        if cosine < PROBE_MIN_COSINE:
            raise ValueError(
                f"the projection was fitted with another encoder ({self.encoder}); {encoder} "
                f"embeds the probe image differently (cosine {cosine:.4f}): fit one for it "
                "(svgeval svgauge fit)")
        if render_size != self.render_size:
            raise ValueError(f"the projection was fitted on {self.render_size} px renders, "
                             f"the encoder takes {render_size} px")


def probe_image(size: int) -> NDArray[np.uint8]:
    """A fixed (size, size, 3) test pattern (colour gradients) whose embedding fingerprints an
    encoder's weights."""
    ramp = np.linspace(0, 255, size)
    red = np.tile(ramp, (size, 1))
    green = red.T
    blue = 255 - (red + green) / 2
    image: NDArray[np.uint8] = np.stack([red, green, blue], axis=-1).round().astype(np.uint8)
    return image


def fit_projection(
    features: NDArray[np.generic], *, n_components: int = 128, encoder: str,
    probe: NDArray[np.generic], render_size: int, background: str = "white",
    min_eigenvalue: float = 1e-10,
) -> Projection:
    """Fit the PCA whitening of ``features`` (N, D), keeping at most ``n_components``
    directions, and never one whose eigenvalue is below ``min_eigenvalue`` x the largest (N
    renders span at most N - 1 directions). Each direction's sign is fixed so that its largest
    coordinate is positive, making the fit deterministic."""
    data = np.asarray(features, dtype=np.float64)
    if data.ndim != 2 or data.shape[0] < 2:
        raise ValueError(f"need at least two embeddings (N, D) to fit, got shape {data.shape}")
    mean = data.mean(axis=0)
    values, vectors = np.linalg.eigh(np.cov(data, rowvar=False))
    order = np.argsort(values)[::-1]
    values, vectors = values[order], vectors[:, order]
    keep = min(n_components, int(np.sum(values > min_eigenvalue * max(values[0], 1e-300))))
    if keep < 1:
        raise ValueError("the embeddings do not vary: cannot fit a projection")
    components = vectors[:, :keep].T
    signs = np.sign(components[np.arange(keep), np.abs(components).argmax(axis=1)])
    return Projection(
        mean=mean, components=components * signs[:, None], eigenvalues=values[:keep],
        encoder=encoder, probe=np.asarray(probe, dtype=np.float64), render_size=render_size,
        background=background, n_fit=data.shape[0],
    )
