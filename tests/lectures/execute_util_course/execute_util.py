from tracer import *  # noqa: F401,F403  (the one line a course of execute_util lectures adds)
