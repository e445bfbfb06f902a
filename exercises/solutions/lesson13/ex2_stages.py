"""Exercise 13.2, a solution (the starter is exercises/lesson13/ex2_stages.py).

Its registers leave room for two 8-warp programs per SM. Its shared memory with 3 stages
is under half of the SM's 228 KiB, so two programs fit; with 4 or 5 stages it is over
half, and one does. With two programs on the SM, while one waits for its loads the other
keeps the tensor cores busy; the deeper pipelines cost that second program. The page's
widget shows the measured rates.
"""

# --8<-- [start:solution]
ANSWER = 3  # two programs per SM; 4 or 5 stages leave room for one
# --8<-- [end:solution]
