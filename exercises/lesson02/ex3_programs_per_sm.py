"""Exercise 02.3 · predict, then check: how many programs fit on an SM? (lesson 02,
"Programs in flight").

The vector add at BLOCK = 2048 on 2 warps (64 threads per program) compiles, on our H100,
to the number of registers per thread that the first check prints (and the page's
question shows). An H100 SM holds at most 2,048 threads, 32 programs and 65,536 registers,
handed to a warp in blocks of 256. How many of these programs fit on one SM at once?

    python -m exercises check 02.3
"""

# --8<-- [start:starter]
ANSWER = None  # programs of the add (BLOCK = 2048, 2 warps) resident on one SM
# --8<-- [end:starter]
