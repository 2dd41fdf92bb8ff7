# ioctl ABI, permissions, bad input, round trips with and without headers;
# every TUN* ioctl answered as tun.ko answers it (tapx-ioctl).
tapxt abi $X
tapx-ioctl $T $X
