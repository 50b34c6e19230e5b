"""The one exception type msgperf raises for problems a user can fix."""


class MsgperfError(Exception):
    """A problem with a clear one-line message naming what is wrong and how to fix it."""
