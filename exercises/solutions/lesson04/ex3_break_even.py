"""Solution of exercise 04.3 (the starter is exercises/lesson04/ex3_break_even.py).

C / (12 R) from the H100's data is between 128 and 256, so 256 is the first power of two
at which the bytes take longer than the programs; the page's widget shows the number."""

# --8<-- [start:solution]
ANSWER = 256  # the first power of two above C / (12 R)
# --8<-- [end:solution]
