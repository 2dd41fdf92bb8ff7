# ioctl ABI, permissions, bad input, round trips with and without headers;
# every TUN* ioctl answered as tun.ko answers it (tapx-ioctl); tun's
# filters on transmitted frames doing what tun.ko's do (tapx-filter).
tapxt abi $X
tapx-ioctl $T $X
tapx-filter $T $X
