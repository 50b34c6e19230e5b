"""The results store (SQLite): ``open_store``, ``Store``. Runs are read through msgperf.loader. See docs/store.md.

The names below are imported on first use (PEP 562): a command that only needs where the store
lives (store.location) does not import the store and the records with the package."""

from msgperf.lazy import lazy_names

_WHERE = {"Store": "msgperf.store.db", "StoreError": "msgperf.store.db", "open_store": "msgperf.store.db",
          "default_path": "msgperf.store.location", "RunFilter": "msgperf.store.listing",
          "RunRow": "msgperf.store.listing"}

__all__ = ["Store", "StoreError", "RunFilter", "RunRow", "default_path", "open_store"]


__getattr__ = lazy_names('msgperf.store', _WHERE, globals())
