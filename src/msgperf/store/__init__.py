"""The results store (SQLite): ``open_store``, ``Store``, ``resolve_run``. See docs/store.md."""

from msgperf.store.db import Store, StoreError, default_path, open_store
from msgperf.store.listing import RunFilter, RunRow

__all__ = ["Store", "StoreError", "RunFilter", "RunRow", "default_path", "open_store"]
