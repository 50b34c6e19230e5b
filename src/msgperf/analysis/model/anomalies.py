"""Sizes that stand off the fitted curve beyond their own noise: spikes and dropouts.

The spikes of the Cisco blog 'Why MPI is Good for You' (2013) (an ACK deferred to the next
progress cycle) and the dropouts NetPIPE perturbs sizes to find are single sizes that the
model of their neighbours does not explain. A size is an anomaly when the prediction of the
piecewise model lies outside the size's own interval of the median (when it has one: the
deviation is in the measurement, not in its noise) and either
- its standardised residual z = (measured - predicted) / scale exceeds ``THRESHOLD`` (3.5,
  the outlier rule of Iglewicz & Hoaglin 1993 applied to sizes), where the scale is the
  point's own noise and the model tolerance, times sqrt(phi), the scatter the model leaves
  (``piecewise``) — so a size is not called anomalous for noise its neighbours share; or
- the model left the size out (``PiecewiseFit.excluded_bytes``: an edge size or a spike
  whose leaving out passed its own test).
Left-out sizes do not pull on any segment; the others are fitted robustly (Huber).
"""

from __future__ import annotations

from typing import Sequence

from msgperf.analysis.model.piecewise import PiecewiseFit
from msgperf.analysis.model.points import SizePoint
from msgperf.values import Value

THRESHOLD = 3.5
RULE = ("outside the size's own interval, and either |measured - model| > 3.5 x (noise + "
        "tolerance, scaled by the sweep's scatter) or left out of the model")


class Anomaly(Value):
    bytes: int
    time_s: float
    predicted_s: float
    rel_deviation: float  # (measured - predicted) / predicted: > 0 a spike (slower), < 0 a dip
    z: float
    excluded: bool = False  # the piecewise model left this size out

    @property
    def kind(self) -> str:
        return "spike" if self.rel_deviation > 0 else "dip"


def find_anomalies(points: Sequence[SizePoint], model: PiecewiseFit) -> tuple[Anomaly, ...]:
    """The anomalies among the sizes of ``model`` (fitted to ``points``)."""
    found = []
    for r in model.residuals:
        outside = r.outside_interval is None or r.outside_interval
        if outside and r.predicted_s > 0 and (abs(r.z) > THRESHOLD or r.excluded):
            found.append(Anomaly(bytes=r.bytes, time_s=r.time_s, predicted_s=r.predicted_s,
                                 rel_deviation=r.rel_residual, z=r.z, excluded=r.excluded))
    return tuple(found)
