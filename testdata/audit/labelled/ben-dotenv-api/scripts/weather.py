import os, requests
from dotenv import load_dotenv
load_dotenv('.env')
key = os.environ.get('WEATHER_KEY')
print(requests.get('https://api.weather.example/v1', params={'key': key}).json())
