# Device deletion with open fds, queued frames and a blocked reader.
runs "create tdown0" tapx-dev mk $X tdown0
runs "attach xdp_tx to tdown0" xdp_attach tdown0 xdp_tx
tool tapx-dev teardown $X tdown0
