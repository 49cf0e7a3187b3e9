class IllegalAtThreeSeats:
    """Plays legally, except on its second move of a game at three seats."""

    seats = 0
    moves = 0

    def new_game(self, info):
        self.seats = info.num_seats

    def act(self, observation, legal_actions, time_left):
        self.moves += 1
        if self.seats == 3 and self.moves == 2:
            return "ZZ"
        return legal_actions[0]
