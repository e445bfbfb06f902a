"""The build side: data to figures and prose numbers (render), the MkDocs hook, the
tests' browser finder. Needs no torch and no GPU."""
