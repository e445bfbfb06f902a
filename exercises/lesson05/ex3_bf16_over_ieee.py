"""Exercise 05.3 · predict, then check: what tensor cores buy (lesson 05).

The one-tile kernel of this lesson, at the lesson's largest size on our H100: how many
times faster is it in bf16 (tensor cores) than in fp32 with input_precision="ieee" (fp32
FMAs on the CUDA cores)? Pick one: 2, 5, 20 or 100.

    python -m exercises check 05.3
"""

# --8<-- [start:starter]
ANSWER = None  # about 2, 5, 20 or 100 times faster
# --8<-- [end:starter]
