"""Advice: what to change in an application (a profile's advice) and which model to use."""
