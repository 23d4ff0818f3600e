#!/usr/bin/env bash
# Source on the GPU machine after on-device.sh: makes the Open MPI that `NUDA_GPU_MPI=1
# scripts/gpu-stage` staged usable. It unpacks Debian's packages under /tmp/ompi (nothing
# written to /) and points Open MPI there: OPAL_PREFIX relocates its install prefix, so it
# finds its plugins and help files under /tmp/ompi/usr.
_mpi_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! command -v mpirun >/dev/null 2>&1; then
  mkdir -p /tmp/ompi
  for deb in "$_mpi_here"/mpi/*.deb; do [ -e "$deb" ] && dpkg-deb -x "$deb" /tmp/ompi; done
  export OPAL_PREFIX=/tmp/ompi/usr
  export PATH="/tmp/ompi/usr/bin:$PATH"
  export LD_LIBRARY_PATH="/tmp/ompi/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  [ -e /tmp/ompi/usr/bin/mpirun ] || ln -sf orterun /tmp/ompi/usr/bin/mpirun
fi
echo "on-device-mpi: $(command -v mpirun || echo 'no mpirun') OPAL_PREFIX=${OPAL_PREFIX:-}"
unset _mpi_here
