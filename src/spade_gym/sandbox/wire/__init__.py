"""The wire between host and worker: records defined once for both sides (:mod:`.protocol`),
their length-prefixed JSON framing (:mod:`.framing`) and the host's decoding of every
reply into checked records (:mod:`.replies`: nothing a worker says is trusted).
"""
