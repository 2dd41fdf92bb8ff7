# ~350 MB through every verdict, multi-buffer (65535 B) and jumbo (9000 B,
# one buffer, kept for reuse when read); memory must come back (free_kb:
# lib.sh).
N=2000
set_port xb
before=$(free_kb)
for act in drop tx redirect pass tx9000 redirect9000; do
	xdp_attach xa xdp_${act%9000}
	case $act in
	drop) tool tapx-dev run --quiet --src $X:xa --size 65535 --count $N --self 0 ;;
	tx) tool tapx-dev run --quiet --src $X:xa --size 65535 --count $N --self $N ;;
	redirect) tool tapx-dev run --quiet --src $X:xa --size 65535 --count $N --dst tap:$X:xb --expect $N ;;
	pass) tool tapx-dev run --quiet --src $X:xa --size 9000 --count $N ;;
	tx9000) tool tapx-dev run --quiet --src $X:xa --size 9000 --count $N --self $N ;;
	redirect9000) tool tapx-dev run --quiet --src $X:xa --size 9000 --count $N --dst tap:$X:xb --expect $N ;;
	esac
done
xdp_detach xa
sleep 1
after=$(free_kb)
runs "leak: free memory $before -> $after kB (within 8 MB)" test $((before - after)) -lt 8192
