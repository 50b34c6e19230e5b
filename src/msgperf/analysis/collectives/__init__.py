"""The collective room: collectives measured, predicted from the run's point-to-point model, and
their algorithm named (analysis/collectives/naming.py), with advice (advice.py).

Face: ``collective_fits(rows, PointToPoint.measured(...), ...) -> Collectives | None`` (None: the run
has no collective), ``collective_advice(collectives, collective, k, s) -> CollectiveAdvice``,
``model_patterns(patterns, nranks)``: the point-to-point patterns the predictions are made from.
"""

from msgperf.analysis.collectives.advice import CollectiveAdvice, Favoured, collective_advice
from msgperf.analysis.collectives.algorithms import ALGORITHMS, COLLECTIVES, REDUCTIONS, Algorithm, algorithms_of
from msgperf.analysis.collectives.fits import (AlgorithmModel, CollectiveFit, Collectives, collective_fits,
                                               collective_name, confirm, model_patterns, nameable)
from msgperf.analysis.collectives.model import (BOTH_WAYS, BOTH_WAYS_COMBINED, BOTH_WAYS_INDEXED, BOTH_WAYS_INITS,
                                                COMBINE, COPY, MODEL_PATTERNS, ONE_WAY, STREAM, TO_SELF, PointToPoint, predict)
from msgperf.analysis.collectives.selection import steps_family
from msgperf.analysis.collectives.naming import CANNOT_TELL, FIT_TOLERANCE, MODEL_BAND, NONE, SEPARATION, Prediction, SizeRange, SizeVerdict

__all__ = ["ALGORITHMS", "BOTH_WAYS", "BOTH_WAYS_COMBINED", "BOTH_WAYS_INDEXED", "BOTH_WAYS_INITS", "STREAM", "TO_SELF", "CANNOT_TELL", "COMBINE", "COPY", "MODEL_PATTERNS", "ONE_WAY", "model_patterns", "COLLECTIVES", "FIT_TOLERANCE", "MODEL_BAND", "SEPARATION", "NONE", "Algorithm", "AlgorithmModel", "CollectiveAdvice",
           "CollectiveFit", "Collectives", "Favoured", "PointToPoint", "Prediction", "SizeRange", "SizeVerdict",
           "REDUCTIONS", "algorithms_of", "collective_advice", "collective_fits", "collective_name", "confirm", "nameable", "predict", "steps_family"]
