# t/lib/install.sh - helpers of the install suites (t/15-install-layout.t,
# t/16-install.t): the build tree the stack runs from, `make install` of it
# into a temporary root, the values of unit files.
#
# Sources tap.sh and the stack's env file ($XB_ENV, default <repo>/.dev/env)
# for XB_DEV_DIR, whose builddir file names the build (scripts/dev up writes
# it).  Defines XB_BUILD, INSTALL_TMP (removed at exit) and:
#   install_tree DESTDIR [MAKE VARS...]  make install DESTDIR=..., then the
#                                        DIR_* variables (install_dirs)
#   install_dirs [MAKE VARS...]          DIR_sbindir DIR_sysconfdir
#                                        DIR_localstatedir DIR_pkgdatadir
#                                        DIR_mandir DIR_systemdsystemunitdir
#                                        DIR_nginxconfdir of that install
#   unit_values FILE KEY                 the values of KEY= in a unit file
#   exec_path VALUE                      the program of an Exec*= value
# Every make here is `command make`: t/16-install.t has a make of its own.

[[ -n ${_INSTALL_SH_LOADED:-} ]] && return 0
_INSTALL_SH_LOADED=1

_INSTALL_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tap.sh
. "$_INSTALL_LIB_DIR/tap.sh"

XB_REPO=$(cd "$_INSTALL_LIB_DIR/../.." && pwd)
XB_ENV=${XB_ENV:-$XB_REPO/.dev/env}
if [[ ! -r $XB_ENV ]]; then
    plan skip_all "no dev stack env file at $XB_ENV (run scripts/dev up)"
fi
set -a
# shellcheck disable=SC1090
. "$XB_ENV"
set +a
XB_ROOT=${XB_ROOT:-$XB_REPO}

XB_BUILD=
if [[ -s ${XB_DEV_DIR:-}/builddir ]]; then
    read -r XB_BUILD <"$XB_DEV_DIR/builddir"
fi
XB_BUILD=${XB_BUILD:-$XB_ROOT/build}
if [[ ! -f $XB_BUILD/Makefile || ! -x $XB_BUILD/src/xborder-fcgi ]]; then
    plan skip_all "no built tree at $XB_BUILD"
fi

INSTALL_TMP=$(mktemp -d "${TMPDIR:-/tmp}/xb-install.XXXXXX")
at_exit 'rm -rf -- "$INSTALL_TMP"'

# install_tree DESTDIR [MAKE VARS...]: make install of the build into
# DESTDIR (output in $INSTALL_TMP/install.log), then install_dirs.
install_tree() {
    local dest=$1
    shift
    command make -C "$XB_BUILD" install DESTDIR="$dest" "$@" \
        >"$INSTALL_TMP/install.log" 2>&1 || {
        diag "$(tail -n 20 "$INSTALL_TMP/install.log")"
        return 1
    }
    install_dirs "$@"
}

# install_dirs [MAKE VARS...]: the DIR_* variables, from the build's
# `make print-install-dirs` with the same variables as the install.
install_dirs() {
    local line name
    while IFS= read -r line; do
        name=${line%%=*}
        case $name in
        sbindir | sysconfdir | localstatedir | pkgdatadir | mandir | systemdsystemunitdir | nginxconfdir)
            printf -v "DIR_$name" '%s' "${line#*=}"
            ;;
        esac
    done < <(command make -s --no-print-directory -C "$XB_BUILD" print-install-dirs "$@")
    [[ -n ${DIR_sbindir:-} && -n ${DIR_systemdsystemunitdir:-} ]]
}

# unit_values FILE KEY: the values of KEY= in a unit file, one a line.
unit_values() {
    sed -n "s/^$2=//p" "$1"
}

# exec_path VALUE: the program an Exec*= value runs (its first word, without
# the -@:+! prefixes systemd allows).
exec_path() {
    local w=${1%% *}
    while [[ $w == [-@:+!]* ]]; do w=${w:1}; done
    printf '%s' "$w"
}
