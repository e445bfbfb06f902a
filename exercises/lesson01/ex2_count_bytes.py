"""Exercise 01.2 · predict, then check: count the bytes (lesson 01, "Fusion").

``y = F.gelu(F.linear(x, w, b)) * mask``, with ``y`` of shape 4096 x 8192 in bf16 and
``mask`` of the same shape. Leaving out what the product itself reads (x and w), how many
MB (10**6 bytes) cross HBM: run eagerly (product, then GELU, then the multiply, each its
own kernel), with GELU and the multiply fused into one kernel, and with everything fused
into the product's kernel? Write your three numbers below, then:

    python -m exercises check 01.2
"""

# --8<-- [start:starter]
EAGER_MB = None  # product, GELU, multiply: three kernels
GELU_MASK_FUSED_MB = None  # product, then one kernel for GELU and the multiply
ALL_FUSED_MB = None  # one kernel: the product applies GELU and the mask before it stores
# --8<-- [end:starter]
