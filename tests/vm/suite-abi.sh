# ioctl ABI, permissions, bad input, round trips with and without headers;
# every TUN* ioctl answered as tun.ko answers it (tapx-ioctl); tun's
# filters on transmitted frames doing what tun.ko's do (tapx-filter).
tool tapx-dev abi $X
tool tapx-ioctl $T $X
tool tapx-filter $T $X
