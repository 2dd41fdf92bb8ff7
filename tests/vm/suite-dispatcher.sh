# Not in the default list: the program swap loop of suite-attach.sh, on
# stock tun.ko first and then on tapx, several rounds, to tell a tapx bug
# from the emulator's. Under multi-threaded TCG, Debian's 6.12 can die in
# bpf_dispatcher_xdp_func (int3 of cross-vCPU text patching) when native
# XDP programs are swapped while frames run through them; if it does so
# while the loop runs on tun.ko, the crash is not tapx's. Run with
#   VM_KERNEL=6.12 VM_ACCEL=tcg VM_APPEND="vmsuites=load,dispatcher" sh tests/vm/run.sh
# (vmdispatchrounds=N, default 5; vmdispatchon=tun or tapx for one driver
# alone); the console log shows which driver's round was running when the
# guest died.
rounds=${vmdispatchrounds:-5}
on=${vmdispatchon:-tun,tapx}
swap_loop() { # DEV NODE:NAME
	tapx-dev flood "$2" 6 1500 >/tmp/flood.out 2>&1 &
	_fpid=$!
	sleep 1
	_i=0
	while [ $_i -lt 10 ]; do
		xdp_attach "$1" xdp_drop
		xdp_attach "$1" xdp_pass
		xdp_detach "$1"
		_i=$((_i + 1))
	done
	wait $_fpid
}
r=1
while [ $r -le "$rounds" ]; do
	case ,$on, in *,tun,*)
		echo "dispatcher: round $r on tun.ko (ta)"
		runs "dispatcher: round $r, swaps under a flood on tun.ko" swap_loop ta $T:ta ;;
	esac
	case ,$on, in *,tapx,*)
		echo "dispatcher: round $r on tapx (xa)"
		runs "dispatcher: round $r, swaps under a flood on tapx" swap_loop xa $X:xa ;;
	esac
	r=$((r + 1))
done
