"""The itinerary family: TravelPlanner-like trips, synthesized with an exact oracle."""
