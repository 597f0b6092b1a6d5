# The Ansible example of man xvbd-apply (its ANSIBLE section, taken from
# the page itself) run by Debian's ansible-core (the lab's optional dom0
# layer, lab-ansible) against the real xvbd in dom0, the plan path pointed
# at a plan of this test's guest:
#  1. a plan that adds an image: the task is changed; xenstore has the
#     VBD, Connected, its params the plan's image, and the image has the
#     plan's size;
#  2. the same playbook again: ok, not changed; the guest's VBD
#     directories in xenstore byte-identical;
#  3. a plan whose guest does not exist: the task fails; its stdout, read
#     as Ansible's from_json reads it, is xvbd's failure object (failed,
#     msg, rc 1), msg the error xvbd printed on stderr; nothing attached.
# One guest boot; the layer is extracted on first use (~15-30 s).
# lab-tier: all
# lab-timeout: 1200
. /lab/lib/testlib.sh
G=t89
dir=/scratch/t89
tmp=/tmp/t89
BE=/local/domain/0/backend/vbd
B=51728	# xvdb

[ -n "$(xl domid $G 2>/dev/null)" ] && lab-guest stop $G >/dev/null 2>&1
rm -rf $dir $tmp
mkdir -p $dir $tmp
truncate -s 16M $dir/xvda.img

phase "guest, the Ansible layer"
lab-guest start $G --disk "format=raw,vdev=xvda,access=rw,target=$dir/xvda.img" \
	--run 'true' >/dev/null
domid=$(xl domid $G 2>/dev/null)
check "guest running" test -n "$domid"
[ -n "$domid" ] || { finish; exit 1; }
# The layer unpacks while the guest boots.
lab-ansible version >$tmp/version 2>&1 &
version_pid=$!
lab-guest wait $G --timeout 600 >/dev/null
expect_eq "guest commands succeeded" 0 "$?"
wait $version_pid
expect_eq "ansible-playbook runs (the layer extracted)" 0 "$?"
sed -n '1p' $tmp/version | sed 's/^/# /'

# The playbook of the manual's ANSIBLE section, as a user copies it.
awk '/^\.SH ANSIBLE/ { on = 1 } on && /^\.nf/ { nf = 1; next }
     on && nf && /^\.fi/ { exit } on && nf' /lab/man/xvbd-apply.1 |
	sed 's/\\-/-/g' >$tmp/man.yml
check "the page's ANSIBLE section has a playbook with changed_when and failed_when" \
	grep -q 'failed_when: (xvbd_apply.stdout | from_json).failed' $tmp/man.yml
plan_path=$(sed -n 's/.*cmd: xvbd apply \([^ ]*\) --json$/\1/p' $tmp/man.yml)
check "the playbook applies a plan file with --json ($plan_path)" test -n "$plan_path"

# play PLAN OUT: the page's playbook on PLAN; the task's result as
# Ansible's tree callback writes it into OUT (the JSON a module returns),
# the play's recap into OUT.recap; ansible-playbook's exit status.
play() {
	sed "s|$plan_path|$1|" $tmp/man.yml >$tmp/play.yml
	rm -rf $tmp/tree
	ANSIBLE_CALLBACKS_ENABLED=tree ANSIBLE_CALLBACK_TREE_DIR=$tmp/tree \
		lab-ansible playbook $tmp/play.yml >"$2.recap" 2>$tmp/play.err
	local rc=$?
	cp $tmp/tree/localhost "$2" 2>/dev/null || : >"$2"
	sed 's/^/#   /' "$2.recap" | grep -v '^#   *$' | head -n 20
	sed 's/^/#   stderr: /' $tmp/play.err | head -n 20
	return $rc
}
# result OUT: "changed failed" of the task (failed as its failed_when
# said: the tree callback's result has no "failed"), the recap's counts.
result() {
	echo "$(jq -r '"\(.changed) \(.failed_when_result)"' "$1")" \
		"$(sed -n 's/^localhost *: .*\(changed=[0-9]*\) .*\(failed=[0-9]*\).*/\1 \2/p' "$1.recap")"
}

cat >$tmp/plan.json <<EOF
{"guest": "$G", "disks": [
 {"vdev": "xvda", "file": "$dir/xvda.img"},
 {"vdev": "xvdb", "file": "$dir/b.img", "size": "32M", "discard": "on"}]}
EOF

phase "1. the plan adds a disk: changed"
t0=$SECONDS
play $tmp/plan.json $tmp/run1.json
expect_eq "ansible-playbook exits 0" 0 "$?"
echo "# first run: $((SECONDS - t0)) s"
expect_eq "the task changed, did not fail" "true false changed=1 failed=0" \
	"$(result $tmp/run1.json)"
expect_eq "xenstore: xvdb Connected, its params the plan's image, discard-enable 1" \
	"4 $dir/b.img 1" \
	"$(xenstore-read $BE/$domid/$B/state $BE/$domid/$B/params $BE/$domid/$B/discard-enable | tr '\n' ' ' | sed 's/ $//')"
expect_eq "the image has the plan's size" $((32 << 20)) "$(stat -c %s $dir/b.img)"
before=$(xs_tree $BE/$domid /local/domain/$domid/device/vbd)

phase "2. the same playbook again: not changed"
t0=$SECONDS
play $tmp/plan.json $tmp/run2.json
expect_eq "ansible-playbook exits 0" 0 "$?"
echo "# second run: $((SECONDS - t0)) s"
expect_eq "the task ok, not changed" "false false changed=0 failed=0" \
	"$(result $tmp/run2.json)"
expect_eq "xenstore: the guest's VBDs byte-identical" "$before" \
	"$(xs_tree $BE/$domid /local/domain/$domid/device/vbd)"

phase "3. a plan that fails: the task fails with xvbd's msg"
cat >$tmp/bad.json <<EOF
{"guest": "t89-nosuch", "disks": [{"vdev": "xvdc", "file": "$dir/c.img", "size": "8M"}]}
EOF
play $tmp/bad.json $tmp/run3.json
expect_eq "ansible-playbook exits 2 (a failed task)" 2 "$?"
expect_eq "the task failed, not changed" "false true changed=0 failed=1" \
	"$(result $tmp/run3.json)"
# The task's stdout as from_json reads it, and its stderr: one jq call.
jq -r '(.stdout | fromjson | "\(.failed) \(.rc)\n\(.msg)"), "\(.rc)", .stderr' \
	$tmp/run3.json >$tmp/run3.task
echo "# task: $(head -c 600 $tmp/run3.task | tr '\n' '|')"
expect_eq "stdout: xvbd's failure object, failed and rc 1" "true 1" "$(sed -n 1p $tmp/run3.task)"
msg=$(sed -n 2p $tmp/run3.task)
check "its msg names the guest ($msg)" grep -q 't89-nosuch' <<<"$msg"
expect_eq "the command's rc is the object's" 1 "$(sed -n 3p $tmp/run3.task)"
expect_eq "msg is the error xvbd printed on stderr" "xvbd: $msg" \
	"$(sed -n 4p $tmp/run3.task)"
check "nothing attached: no c.img, xenstore as before" \
	test ! -e $dir/c.img -a "$before" = "$(xs_tree $BE/$domid /local/domain/$domid/device/vbd)"

phase "clean up"
lab-guest stop $G
rm -rf $dir $tmp
finish
