"""Runners: tracing lectures on another machine (a Slurm cluster, a GPU box over ssh) and bringing the traces back.

A course declares its runners in ``pyproject.toml`` (``config``); a lecture that a runner's
``lectures`` patterns match is traced through it by ``run``, ``build``, ``serve`` and ``check
--retrace``. ``dispatch`` drives one batch of lectures through one runner, ``launch`` runs its launch
template on this machine, ``ssh`` sends files to a host and runs commands there, ``slurm`` speaks to
Slurm through its own commands (``srun``, ``sbatch --wait``, ``scancel``, ``scontrol``) and
``bring_back`` checks a returned trace before it replaces the committed one. Nothing here schedules
work itself: Slurm, or the command in the launch template, decides where things run.
"""
