"""Solution of exercise 03.1 (the starter is exercises/lesson03/ex1_first_call.py): the
H100's cold first call, from its data, falls in this range; the page's widget shows the
number."""

# --8<-- [start:solution]
ANSWER = "100 ms to 1 s"
# --8<-- [end:solution]
