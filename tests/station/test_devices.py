"""The station's simulated devices keep their own port across an unplug."""

import os

from hardware.devices import SerialLeds
from hardware.protocol import OFF, LedFrame
from server.station.devices import simulated
from tests.hardware.conftest import wait_until


def test_an_unplugged_simulated_device_keeps_its_port_from_other_programs():
    # A pty's /dev/pts/N goes back to the kernel when it closes, and the next program to open
    # a pty gets it: a station reconnecting to the bare number would drive someone else's board.
    ours = simulated("leds", grid=(9, 10))
    directory = os.path.dirname(ours.path)
    theirs = None
    leds = SerialLeds(ours.path, lambda event: None)
    try:
        leds.connect()
        wait_until(lambda: leds.link.connected, what="the board connected")
        ours.unplug()
        assert not os.path.exists(ours.path)
        theirs = simulated("leds", grid=(9, 11))
        assert theirs.path != ours.path
        ours.replug()
        frame = LedFrame(9, 10, (OFF,) * 90)
        wait_until(lambda: leds.link.connected, what="the board reconnected")
        leds.show(frame)
        wait_until(lambda: ours.device.frame == frame, what="our board shows the frame")
        assert theirs.device.frame is None
    finally:
        leds.close()
        ours.stop()
        if theirs is not None:
            theirs.stop()
    assert not os.path.exists(directory)
