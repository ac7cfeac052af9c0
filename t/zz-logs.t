#!/usr/bin/env bash
# zz-logs.t - runs last: every line xborder-fcgi and xborder-worker wrote
# during the whole prove run (the stack's log files) is logfmt, carries
# its fields, and gives nothing away:
#  - every line: ts (UTC, ms), level, prog, pid, msg;
#  - request lines (msg=request): request_id, platform_id, token_id,
#    method, route (a pattern of the routing table or "-", never a raw
#    path), status, code (an error code when status >= 400, else "-";
#    /healthz's 503 is its health document, "-"),
#    dur_us, db_us, db_statements;
#  - job and delivery lines: job, attempt, outcome;
#  - no line holds a client secret (the stack's own, or anything shaped
#    like one), an Authorization header or "Basic ", or a run of 8 or more
#    digits outside the numeric fields and ids (an account number).
# Lines before the first logfmt line (an older build of a dev stack) are
# not judged.
. "$(dirname "${BASH_SOURCE[0]}")/lib/api.sh"
no_plan

LOGDIR=${XB_DEV_DIR:?}/log
ROUTES=$(grep -o '"/[^"]*"' "$XB_REPO/src/routes.c" | tr -d '"' | sort -u | tr '\n' ' ')
ok "$([[ $ROUTES == */config* ]] && echo 1)" "the route patterns, from src/routes.c"

for f in xborder-fcgi.log xborder-worker.log; do
    file=$LOGDIR/$f
    if [[ ! -s $file ]]; then
        fail "$f exists and is not empty"
        continue
    fi
    out=$(SECRET="$XB_CLIENT_SECRET" ROUTES="$ROUTES" perl -e '
        my %route = map { $_ => 1 } split / /, $ENV{ROUTES};
        $route{"-"} = 1;
        my $secret = $ENV{SECRET};
        my %numeric = map { $_ => 1 } qw(pid status dur_us db_us db_statements attempt batch
            job_id http_status dropped_fields);
        my %need = (
            request  => [qw(request_id platform_id token_id method route status code
                            dur_us db_us db_statements)],
            job      => [qw(job job_id platform_id ref_id attempt outcome dur_us)],
            delivery => [qw(job event_id platform_id attempt outcome http_status dur_us)],
        );
        my ($n, $started, %kinds, @bad) = (0, 0);
        sub bad { push @bad, "$_[0]: $_[1]" if @bad < 20 }
        while (my $line = <STDIN>) {
            chomp $line;
            $started ||= $line =~ /^ts=/;
            next unless $started;
            $n++;
            my ($l, %f, @order) = ($line);
            while ($l =~ s/^([a-z_]+)=("(?:[^"\\]|\\.)*"|[^ "=]+)( |$)//) {
                my ($k, $v) = ($1, $2);
                bad("duplicate $k", $line) if exists $f{$k};
                $v =~ s/^"(.*)"$/$1/;
                $f{$k} = $v;
                push @order, $k;
            }
            if ($l ne "") { bad("not logfmt", $line); next }
            if (join(" ", @order[0..4]) ne "ts level prog pid msg") {
                bad("not ts level prog pid msg first", $line); next
            }
            bad("ts", $line) unless $f{ts} =~ /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
            bad("level", $line) unless $f{level} =~ /^(error|warn|info|debug)$/;
            bad("prog", $line) unless $f{prog} =~ /^xborder-(fcgi|worker)$/;
            for my $k (keys %f) {
                bad("numeric $k", $line) if $numeric{$k} && $f{$k} !~ /^-?\d+$/;
                next if $numeric{$k} || $k eq "ts";
                # An id (a UUID, a request id) may hold 8 digits in a row by
                # chance; it is not an account number, so ids are taken out
                # before looking for one.
                (my $v = $f{$k}) =~ s/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b[0-9a-f]{32}\b/<id>/g;
                bad("8+ digits in $k", $line) if $v =~ /\d{8,}/ && $k !~ /_id$/;
                bad("secret-shaped $k", $line) if $f{$k} =~ /(^|[^A-Za-z0-9_-])[A-Za-z0-9_-]{43}([^A-Za-z0-9_-]|$)/;
            }
            bad("the stack secret", $line) if index($line, $secret) >= 0;
            bad("authorization", $line) if $line =~ /authorization|basic /i;
            my $kind = $f{msg};
            next unless $need{$kind};
            $kinds{$kind}++;
            for my $k (@{ $need{$kind} }) { bad("$kind without $k", $line) unless exists $f{$k} }
            if ($kind eq "request") {
                bad("route not a pattern", $line) unless $route{$f{route}};
                # /healthz answers 503 with its health document, not an envelope.
                bad("error without code", $line) if $f{status} >= 400 && $f{code} !~ /^[A-Z][A-Z_]+$/
                    && !($f{route} eq "/healthz" && $f{status} == 503 && $f{code} eq "-");
                bad("code on success", $line) if $f{status} < 400 && $f{code} ne "-";
                bad("request_id", $line) unless $f{request_id} =~ /^[0-9a-f-]{32,36}$/;
                for my $k (qw(platform_id token_id)) {
                    bad($k, $line) unless $f{$k} eq "-" || $f{$k} =~ /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
                }
                bad("level of a 5xx", $line) if $f{status} >= 500 && $f{level} ne "warn";
            }
        }
        print "lines=$n ", join(" ", map { "$_=$kinds{$_}" } sort keys %kinds), "\n";
        print "BAD $_\n" for @bad;' <"$file")
    counts=$(head -n 1 <<<"$out")
    bad=$(grep '^BAD ' <<<"$out" || true)
    if [[ -z $bad ]]; then
        pass "$f: every line logfmt with its fields, nothing secret ($counts)"
    else
        fail "$f: every line logfmt with its fields, nothing secret ($counts)"
        diag "$bad"
    fi
    case $f in
    xborder-fcgi.log) like "$counts" ' request=[0-9]{3,}' "$f has the request lines of the run" ;;
    xborder-worker.log) like "$counts" ' job=[0-9]+' "$f has the job lines of the run" ;;
    esac
done

done_testing
