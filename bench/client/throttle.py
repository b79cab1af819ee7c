"""DevTools throttling for bench/client/run.py (issue 44): a slow network and a slow CPU for one page.

Network conditions are Chromium's own emulation (`Network.emulateNetworkConditions`): every request of the page
waits `latency` ms before its answer starts and all of them share the throughputs. The CPU is slowed by
`Emulation.setCPUThrottlingRate` (4: each task takes four times as long). Both apply to the page's target, so they
are set before it navigates, for every request and task from the first one on."""

# Issue 44's two connections: latency in ms, throughputs in bits per second.
NETWORKS = {
    'A': {'latency': 150, 'down': 1_600_000, 'up': 750_000},
    'B': {'latency': 400, 'down': 400_000, 'up': 400_000},
}


def describe(network, cpu):
    parts = []
    if network:
        n = NETWORKS[network]
        parts.append(f"connection {network} ({n['latency']} ms, {n['down'] / 1e6:g} Mbit/s down, "
                     f"{n['up'] / 1e3:g} kbit/s up)")
    if cpu and cpu != 1:
        parts.append(f'CPU slowed {cpu:g}x')
    return ', '.join(parts) or 'no throttling'


def apply(page, network=None, cpu=1):
    """Throttles `page` (before its first navigation); returns the DevTools session that holds the throttling."""
    cdp = page.context.new_cdp_session(page)
    if network:
        n = NETWORKS[network]
        cdp.send('Network.enable')
        # Throughputs are in bytes per second.
        cdp.send('Network.emulateNetworkConditions', {'offline': False, 'latency': n['latency'],
                                                      'downloadThroughput': n['down'] / 8,
                                                      'uploadThroughput': n['up'] / 8})
    if cpu and cpu != 1:
        cdp.send('Emulation.setCPUThrottlingRate', {'rate': cpu})
    return cdp
