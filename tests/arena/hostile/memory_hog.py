class MemoryHog:
    def act(self, observation, legal_actions, time_left):
        blob = bytearray(10 * 2**30)  # 10 GB
        return legal_actions[len(blob) % len(legal_actions)]
