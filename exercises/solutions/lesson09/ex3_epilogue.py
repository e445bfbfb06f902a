"""Exercise 09.3, a solution (the starter is exercises/lesson09/ex3_epilogue.py).

C is 4096^2 x 2 bytes, about 34 MB; four passes over it at the copy bandwidth take at
least a quarter of what cuBLAS spends on the product at 4096^3, and the two small eager
kernels run somewhat below copy speed. The product costs M N K, the epilogue M N: at
8192^3 the same chain adds about half as much, relative to the product. The page's
widget shows the measured ratio.
"""

# --8<-- [start:solution]
ANSWER = 1.5  # four passes over C: a quarter of cuBLAS's time at copy speed, more below it
# --8<-- [end:solution]
