"""Exercise 11.3, a solution (the starter is exercises/lesson11/ex3_against_compile.py).

Both backwards move about the same bytes (x, dy and dx, plus dweight), so neither can be
much faster than the other at copy speed; the book's is tuned for this shape (programs
per SM, tile, loading ahead), and the difference is the gap to copy that tuning closes.
The page's widget shows the measured ratio.
"""

# --8<-- [start:solution]
ANSWER = 1.2  # the same bytes; the difference is how close each gets to copy speed
# --8<-- [end:solution]
