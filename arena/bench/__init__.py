"""The benchmarks behind ``arena bench``: plain functions returning measurements."""
