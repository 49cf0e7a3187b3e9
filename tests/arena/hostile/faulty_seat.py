"""Faults in seat 0 only (how is given to its constructor); in seat 1 it plays."""

import os
import time


class FaultySeat:
    def __init__(self, how="raise"):
        self.how = how
        self.seat = 0

    def new_game(self, info):
        self.seat = info.seat

    def act(self, observation, legal_actions, time_left):
        if self.seat == 0:
            if self.how == "raise":
                raise RuntimeError("seat 0")
            if self.how == "exit":
                os._exit(3)
            if self.how == "sleep":
                time.sleep(1000)
            if self.how == "illegal":
                return "ZZ"
        return legal_actions[0]
