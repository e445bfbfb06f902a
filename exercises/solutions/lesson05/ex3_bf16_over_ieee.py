"""Solution of exercise 05.3 (the starter is exercises/lesson05/ex3_bf16_over_ieee.py):
the measured ratio on our H100 is nearest 20; the page's widget shows it."""

# --8<-- [start:solution]
ANSWER = 20
# --8<-- [end:solution]
