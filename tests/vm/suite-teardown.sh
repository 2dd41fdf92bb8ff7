# Device deletion with open fds, queued frames and a blocked reader.
ok "create tdown0" tapxt mk $X tdown0
ok "attach xdp_tx to tdown0" xdp_attach tdown0 xdp_tx
tapxt teardown $X tdown0
