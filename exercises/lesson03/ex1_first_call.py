"""Exercise 03.1 · predict, then check: what the first call costs (lesson 03).

In a fresh Python process with an empty cache folder, the vector add's first call on our
H100 compiles the kernel before it runs. How long does that first call take? Pick one:
"under 10 ms", "10 to 100 ms", "100 ms to 1 s" or "1 to 10 s", write it below, then:

    python -m exercises check 03.1

The check compares it with the book's measured data (figures/data/h100/).
"""

# --8<-- [start:starter]
ANSWER = None  # "under 10 ms", "10 to 100 ms", "100 ms to 1 s" or "1 to 10 s"
# --8<-- [end:starter]
