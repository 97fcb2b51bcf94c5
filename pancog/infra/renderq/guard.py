"""Imported by the render processes' forkserver before anything else (``pancog/infra/renderq/``): the forkserver
is killed by the kernel when the bot dies, however it dies, and takes its workers with it."""

from pancog.infra.renderq.workers import guard_forkserver

guard_forkserver()
