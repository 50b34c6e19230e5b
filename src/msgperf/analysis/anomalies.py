"""Sizes that stand off the fitted curve beyond their own noise: spikes and dropouts.

The spikes of seeds/001 (an ACK deferred to the next progress cycle) and the dropouts
NetPIPE perturbs sizes to find are single sizes that the model of their neighbours does
not explain. A size is an anomaly when both hold:
- its standardised residual against the piecewise model, z = (measured - predicted) / scale,
  exceeds ``THRESHOLD`` (3.5, the outlier rule of Iglewicz & Hoaglin 1993 applied to sizes),
  where the scale is the point's own noise and the model tolerance, times sqrt(phi), the
  scatter of the sweep (``scatter``) — so a size is not called anomalous for noise its
  neighbours share;
- the prediction lies outside the size's own interval of the median (when it has samples):
  the deviation is in the measurement, not in its noise.
The robust (Huber) fit keeps an anomaly from dragging its segment toward itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from msgperf.analysis.piecewise import PiecewiseFit
from msgperf.analysis.points import SizePoint, point_arrays

THRESHOLD = 3.5
RULE = "|measured - model| > 3.5 x (noise + tolerance, scaled by the sweep's scatter), outside the size's own interval"


@dataclass(frozen=True)
class Anomaly:
    bytes: int
    time_s: float
    predicted_s: float
    rel_deviation: float  # (measured - predicted) / predicted: > 0 a spike (slower), < 0 a dip
    z: float

    @property
    def kind(self) -> str:
        return "spike" if self.rel_deviation > 0 else "dip"


def find_anomalies(points: Sequence[SizePoint], model: PiecewiseFit) -> tuple[Anomaly, ...]:
    x, y, sigma = point_arrays(points, model.tolerance)
    scale = sigma * np.sqrt(model.phi)
    found = []
    for p, xi, yi, si in zip(points, x, y, scale):
        predicted = model.predict(xi)
        z = (yi - predicted) / si
        outside = p.ci_low_s is None or not (p.ci_low_s <= predicted <= p.ci_high_s)
        if abs(z) > THRESHOLD and outside and predicted > 0:
            found.append(Anomaly(bytes=p.bytes, time_s=p.time_s, predicted_s=predicted,
                                 rel_deviation=(yi - predicted) / predicted, z=float(z)))
    return tuple(found)
