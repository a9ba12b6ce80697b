"""Run junqi's self-play, arena and studies across a Ray cluster.

The command line is ``junqi-ray`` (junqi_ray.cli); docs/distributed.md
describes the parts, the merge and the cluster setup.
"""

__version__ = "0.1.0"
