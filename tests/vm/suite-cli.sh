# The tap-accel CLI and the policy program from bpf/ on tapx, unchanged.
N=100
if [ ! -x /bin/tap-accel ]; then
	bad "cli: build/user/tap-accel missing (make user)"
else
	printf 'rule drop ethertype 0x88b5\ndefault pass\n' >/tmp/p-drop
	printf 'rule pass ethertype 0x88b5\ndefault drop\n' >/tmp/p-pass
	printf 'rule redirect xb ethertype 0x88b5\ndefault drop\n' >/tmp/p-redirect
	runs "cli: tap-accel attach xa --policy drop" tap-accel attach xa --policy /tmp/p-drop --mode native
	runs "cli: native (driver) XDP program on xa" sh -c 'bpftool net show dev xa | grep -q "driver id"'
	for size in 60 9000; do
		snap xa
		tool tapx-dev run --src $X:xa --size $size --count $N --dst packet:xa --expect 0
		expect xa xdp_drop=$N xdp_pass=0
	done
	runs "cli: attach --policy pass" tap-accel attach xa --policy /tmp/p-pass
	for size in 60 9000; do
		snap xa
		tool tapx-dev run --src $X:xa --size $size --count $N --dst packet:xa --expect $N
		expect xa xdp_pass=$N xdp_drop=0
	done
	runs "cli: attach --policy redirect to xb" tap-accel attach xa --policy /tmp/p-redirect
	for size in 60 1500; do
		snap xa
		snap xb
		tool tapx-dev run --src $X:xa --size $size --count $N --dst tap:$X:xb --expect $N
		expect xa xdp_redirect=$N
		expect xb xdp_xmit=$N
	done
	runs "cli: tap-accel stats xa" sh -c 'tap-accel stats xa >/tmp/stats.out'
	runs "cli: tap-accel detach xa" tap-accel detach xa
	runs "cli: no XDP program left on xa" sh -c '! bpftool net show dev xa | grep -q "driver id"'
fi
