"""``Value``: the base of msgperf's immutable records and results (a run's records, a ``Plan``, a
``RunResult`` and everything in it).

A msgspec ``Struct`` rather than a frozen dataclass, for two costs a re-read pays:
- making the class: Python 3.11's ``dataclass`` compiles five methods per class, ~1.2 ms each
  frozen class; ``show`` imports some 130 of them (0.17 s, half of its imports), a ``Struct``
  class costs a tenth of that;
- reading the analysis cache (plain_data.py): msgspec builds Structs from MessagePack at C speed,
  each as the list of its field values (``array_like``), refusing a value past its fields.

Instances are immutable (``frozen``) and compared field by field; ``msgspec.structs.replace`` makes
a changed copy. Four immutable classes stay frozen dataclasses: ``records.format.Measurement`` and
``analysis.samples.inputs.SampleSet`` (a field read through a property: samples that may wait on
disk), ``launch.resume.ResumeState`` (a field left out of comparisons) and
``launch.request.MeasureRequest`` (its ``__post_init__`` sets a field); mutable builders
(``present.grid.Grid``...) are plain dataclasses.
"""

from __future__ import annotations

import msgspec


class Value(msgspec.Struct, frozen=True, array_like=True, forbid_unknown_fields=True):
    """An immutable record; subclasses declare fields as a dataclass does."""
