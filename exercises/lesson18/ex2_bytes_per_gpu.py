"""Exercise 18.2 · predict, then check: what one-shot costs on eight GPUs (lesson 18,
"Why it looks like that").

An all-reduce of a 64 MiB tensor across 8 GPUs. The one-shot kernel has every GPU read
the whole tensor from each of its 7 peers. A two-shot all-reduce (reduce-scatter, then
all-gather: what a ring moves too) has every GPU receive 2 · 7/8 of the tensor. How many
times more bytes does each GPU receive over NVLink in the one-shot kernel? Write the
number below, then:

    python -m exercises check 18.2

Arithmetic only: no GPU and no measured data needed.
"""

# --8<-- [start:starter]
ANSWER = None  # how many times the two-shot bytes, per GPU
# --8<-- [end:starter]
